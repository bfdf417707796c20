import Foundation
import HTTPTypes
import Logging
import Mien
import MienCore
import MienStudies

/// The webcam recording of a study with `record`: uploaded after the stimuli in chunks, each at the offset
/// the server has (so an upload cut by the network resumes where it stopped), into the participant's folder.
///
/// The bytes received are the partial file's size, never a count of this server's: after a restart, and with
/// several servers sharing the study folder, a chunk may come through any of them, and each must append where the
/// last one, through whichever server, ended.
extension CollectedStudy {
    /// The bytes of a participant's recording received so far (the file's size read off the cooperative pool).
    func recordingBytes(_ id: String) async -> Int {
        let file = partial(id)
        return await BlockingWork.run { Self.size(of: file) } ?? session(id)?.recordingBytes ?? 0
    }

    private func partial(_ id: String) -> URL { folder.participant(id).appendingPathComponent("recording.webm.part") }

    /// A file's size in bytes, nil when there is none.
    ///
    /// Through FileManager rather than `stat`: which C module defines `struct stat` depends on the order the
    /// compiler meets the headers (a clean build found it in NIO's CNIOLinux), and member import visibility
    /// then refuses it. An unreadable file counts as none: the next append, which opens it, says why.
    private static func size(of file: URL) -> Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path) else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }

    /// Appends a chunk at `offset`.
    /// - Returns: the bytes received so far.
    /// - Throws: `ServiceRefusal`: 403 without `record`, 409 for an offset other than the bytes received (the
    ///   body says how many), 413 past `maximumRecordingBytes`, 415 for a first chunk that is not WebM or MP4.
    func appendRecording(_ id: String, offset: Int, chunk: [UInt8]) async throws -> Int {
        guard settings.record else {
            throw ServiceRefusal(status: .forbidden, code: "notRecorded", message: "this study does not record video")
        }
        guard let session = session(id), !session.recordingComplete, session.state != .complete else {
            throw ServiceRefusal(status: .conflict, code: "sessionEnded", message: "this recording is complete")
        }
        // One chunk at a time per participant (a second tab, a retried request): the claim is held over the write,
        // never the study's lock, and the write (up to a chunk's size, then fsync) runs off the cooperative pool.
        guard local.withLock({ $0.appending.insert(id).inserted }) else {
            throw ServiceRefusal(
                status: .conflict, code: "uploadBusy",
                message: "another chunk of this recording is being written; send this one again after it")
        }
        defer { local.withLock { _ = $0.appending.remove(id) } }
        let (file, participantFolder, maximum, study) = (
            partial(id), folder.participant(id), settings.maximumRecordingBytes, name
        )
        let total = try await BlockingWork.run {
            try Self.append(
                chunk, at: offset, to: file, in: participantFolder, maximumBytes: maximum, study: study)
        }
        await record(id) { session in
            session.recordingBytes = total
            session.step = "upload"
        }
        return total
    }

    /// Ends the upload: the file is checked as a video Mien can read, kept as `recording.webm`, and each
    /// stimulus's onset in it (measured by the page) recorded for `recorded.csv`.
    /// - Throws: `ServiceRefusal` 400 for onsets that are not the participant's stimuli or not numbers, 415 for
    ///   a file that does not decode (it is deleted).
    func finishRecording(_ id: String, onsets: [String: Double]) async throws {
        guard settings.record else {
            throw ServiceRefusal(status: .forbidden, code: "notRecorded", message: "this study does not record video")
        }
        let partial = partial(id)
        guard let session = session(id), (await BlockingWork.run { Self.size(of: partial) } ?? 0) > 0 else {
            throw ServiceRefusal(status: .conflict, code: "noRecording", message: "no recording was uploaded")
        }
        // A recording lasts the session at most: an onset past a day is not one (checked here, where it arrives).
        for (stimulus, onset) in onsets where !session.order.contains(stimulus) || !(0...86_400).contains(onset) {
            throw ServiceRefusal(
                status: .badRequest, code: "invalidArgument",
                message: "onsets are seconds (0 to 86400) of this participant's stimuli")
        }
        let final = folder.webcam(id)
        do {
            // Opened as a job's upload is (FFmpeg reads its container and streams), off the cooperative pool; its
            // frames are read only when someone analyses it, by a Detector.
            try await BlockingWork.run { _ = try InputSource.open(path: partial.path) }
        } catch {
            let left = await BlockingWork.run { () -> String? in
                do {
                    try FileManager.default.removeItem(at: partial)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            // The next upload of theirs starts it afresh; a partial file left behind only takes the disk.
            if let left { Self.logger.error("study \(name): an unreadable recording cannot be deleted: \(left)") }
            throw ServiceRefusal(
                status: .unsupportedMediaType, code: "unsupportedFormat",
                message:
                    "the recording cannot be read as a video (\((error as? MienError)?.message ?? "\(error)")); upload it again"
            )
        }
        let failure = await BlockingWork.run {
            rename(partial.path, final.path) == 0 ? nil : String(cString: strerror(errno))
        }
        if let failure {
            Self.logger.error("study \(name): a recording cannot be kept: \(failure)")
            throw Self.unavailable
        }
        try await commit(id) { session, _ in
            session.recordingComplete = true
            for (stimulus, onset) in onsets { session.stimuli[stimulus, default: .init()].recordingOnset = onset }
        }
    }

    /// Appends `chunk` to the partial recording `file` (in `participantFolder`) at `offset`, which must be its size,
    /// and puts it on disk; creates the file for the first chunk, which must start like a video.
    /// - Returns: the file's size after it.
    /// - Throws: `ServiceRefusal` as `appendRecording` says; 503 when the file cannot be created or written (a
    ///   chunk half written is cut back, so the offset the server has stays the one it said).
    private static func append(
        _ chunk: [UInt8], at offset: Int, to file: URL, in participantFolder: URL, maximumBytes: Int, study: String
    ) throws -> Int {
        let have = size(of: file) ?? 0
        guard offset == have else {
            throw ServiceRefusal(
                status: .conflict, code: "wrongOffset",
                message: "the recording has \(have) bytes; send the chunk at offset \(have)")
        }
        guard have + chunk.count <= maximumBytes else {
            throw ServiceRefusal(
                status: .contentTooLarge, code: "tooLarge",
                message: "a recording may hold \(maximumBytes) bytes at most")
        }
        if offset == 0 {
            guard isVideo(chunk) else {
                throw ServiceRefusal(
                    status: .unsupportedMediaType, code: "unsupportedFormat",
                    message: "a recording is WebM or MP4 (MediaRecorder's output); this does not start like one")
            }
            do {
                try FileManager.default.createDirectory(at: participantFolder, withIntermediateDirectories: true)
            } catch {
                logger.error("study \(study): a recording cannot be created: \(error)")
                throw unavailable
            }
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                logger.error("study \(study): a recording cannot be created in \(participantFolder.path)")
                throw unavailable
            }
        }
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(chunk))
            try handle.synchronize()  // the offset the page is told is on disk
        } catch {
            logger.error("study \(study): a recording cannot be written: \(error)")
            if let handle = try? FileHandle(forWritingTo: file) {
                try? handle.truncate(atOffset: UInt64(clamping: have))
                try? handle.close()
            }
            throw unavailable
        }
        return have + chunk.count
    }

    /// WebM (EBML header) or MP4/MOV (`ftyp` box).
    static func isVideo(_ bytes: [UInt8]) -> Bool {
        if bytes.count >= 4, bytes[0..<4] == [0x1A, 0x45, 0xDF, 0xA3] { return true }
        return bytes.count >= 8 && bytes[4..<8] == Array("ftyp".utf8)[...]
    }
}
