public import Foundation
import Mien
import MienStudies

/// Recordings for study tests, made from the evaluation data.
///
/// Motion JPEG `.avi` files (each frame coded alone, so a frame decodes to the same pixels wherever it sits in a
/// file, the first excepted):
///
/// - a talking head (the first 100 frames of the evaluation's talking-head video, 4 s at 25 fps) after one frame
///   of other footage (a pan across a picture of grass, no face; onset 0.04 s), and the same frames after 2 s of
///   that footage (onset 2 s): after alignment the two must be one series;
/// - the grass alone (a recording with no face);
/// - yalefaces subjects as webcam viewers at 10 fps: 4 s of their neutral face, or 1 s neutral, 2 s smiling,
///   1 s neutral (a smile episode in the middle of the stimulus).
public enum StudyRecordings {
    /// Frames per second of the talking-head recordings.
    public static let talkingFramesPerSecond = 25.0
    /// Frames of the talking head in each of its recordings.
    public static let talkingFrames = 100
    /// Frames of grass before the talking head in the late recording (2 s: its onset); the other has one.
    public static let leadFrames = 50

    /// Writes `talking.avi`, `talking-late.avi` and `grass.avi` into `folder`.
    /// - Returns: their paths, in that order.
    public static func writeTalking(in folder: URL, evaluation root: URL) throws -> (String, String, String) {
        let video = try VideoFileSource(
            path: root.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path)
        var talking: [Frame] = []
        while talking.count < talkingFrames, let frame = try video.nextFrame() { talking.append(frame) }
        let grass = try ImageDecoder.decode(
            file: root.appendingPathComponent("face_alignment_test_assets/grass.jpg").path)
        let side = talking.first?.width ?? 512
        let lead = try (0..<leadFrames).map { index in
            // A slow pan, so the other footage moves as a video does.
            try grass.warped(
                by: .scale(
                    Double(side) / Double(min(grass.width, grass.height)) * 1.2,
                    thenTranslate: -Double(index) * 2, 0),
                width: side, height: side)
        }
        let paths = ["talking.avi", "talking-late.avi", "grass.avi"].map { folder.appendingPathComponent($0).path }
        // One frame of grass first in both: the first frame of an .avi is coded other than the same picture
        // further into a file (276,517 of its 786,432 decoded bytes differ; every later frame is equal), which
        // would start the two recordings' trackers differently. Motion JPEG decodes each frame alone, so the
        // difference comes from the writer (most likely its encoder's rate control starting a file from its own
        // quantiser; not verified further).
        try write([lead[0]] + talking, to: paths[0], side: side, fps: talkingFramesPerSecond)
        try write(lead + talking, to: paths[1], side: side, fps: talkingFramesPerSecond)
        try write(lead, to: paths[2], side: side, fps: talkingFramesPerSecond)
        return (paths[0], paths[1], paths[2])
    }

    /// Writes `<subject>-neutral.avi` and `<subject>-smile.avi` (10 fps, 320x240) for a yalefaces subject
    /// (`subject01`): `viewerLead` seconds of the neutral face, then the 4-s stimulus (the smile from 1 to 3 s of it).
    /// - Returns: the neutral and the smiling recording's paths.
    public static func writeViewer(_ subject: String, in folder: URL, evaluation root: URL) throws -> (String, String) {
        func picture(_ condition: String) throws -> Frame {
            let still = try ImageDecoder.decode(
                file: root.appendingPathComponent("yalefaces/png/\(subject).\(condition).png").path)
            return try still.warped(by: .scale(1, thenTranslate: 0, 0), width: 320, height: 240)
        }
        let normal = try picture("normal")
        let happy = try picture("happy")
        let neutralPath = folder.appendingPathComponent("\(subject)-neutral.avi").path
        let smilePath = folder.appendingPathComponent("\(subject)-smile.avi").path
        // A second of the neutral face before the stimulus (`viewerLead`), as a webcam recording has: the face's
        // baseline settles there, not in the stimulus (issue 95).
        let lead = Int(viewerLead * 10)
        try write(Array(repeating: normal, count: lead + 40), to: neutralPath, side: nil, fps: 10)
        try write(
            Array(repeating: normal, count: lead + 10) + Array(repeating: happy, count: 20)
                + Array(repeating: normal, count: 10),
            to: smilePath, side: nil, fps: 10)
        return (neutralPath, smilePath)
    }

    /// Seconds of a viewer recording (`writeViewer`) before its 4-s stimulus: the onset a manifest gives it.
    public static let viewerLead = 1.0

    /// The yalefaces subjects with a neutral and a happy picture.
    public static let viewerSubjects = (1...8).map { "subject0\($0)" }

    /// Writes a panel for the worked example and the timing of `mien study`: `viewers` recordings, each a
    /// viewer (yalefaces' 8 subjects in turn) watching one version of an 8 s advert at 25 fps after 1-3 s of other
    /// footage (grass): version A, with a smile from 3 s to 6 s, or version B, without (each subject sees both); and
    /// `manifest.csv` naming them (groups A and B).
    /// - Returns: the manifest's path.
    /// `seconds` and `fps` lengthen the advert and set the rate (the smile from 3/8 to 6/8 of it), for timing a
    /// long study.
    public static func writePanel(
        in folder: URL, evaluation root: URL, viewers: Int, seconds: Double = 8, fps: Double = 25
    ) throws -> String {
        let grass = try ImageDecoder.decode(
            file: root.appendingPathComponent("face_alignment_test_assets/grass.jpg").path)
        var lines = ["recording,participant,stimulus,onset,duration,group"]
        for viewer in 0..<viewers {
            let subject = viewerSubjects[viewer % viewerSubjects.count]
            func picture(_ condition: String) throws -> Frame {
                let still = try ImageDecoder.decode(
                    file: root.appendingPathComponent("yalefaces/png/\(subject).\(condition).png").path)
                return try still.warped(by: .scale(1, thenTranslate: 0, 0), width: 320, height: 240)
            }
            let normal = try picture("normal")
            // Each subject watches A once and B once over the first 16 viewers, so the groups hold the same faces.
            let version = (viewer + viewer / viewerSubjects.count) % 2 == 0 ? "A" : "B"
            let middle = version == "A" ? try picture("happy") : normal
            let leadFrames = Int(fps) + (viewer * 17) % Int(2 * fps)
            let lead = try (0..<leadFrames).map { frame in
                try grass.warped(by: .scale(0.5, thenTranslate: -Double(frame) * 2, 0), width: 320, height: 240)
            }
            let eighth = Int((seconds * fps / 8).rounded())
            let frames =
                lead + Array(repeating: normal, count: 3 * eighth) + Array(repeating: middle, count: 3 * eighth)
                + Array(repeating: normal, count: 2 * eighth)
            let name = String(format: "viewer%02d.avi", viewer + 1)
            try write(frames, to: folder.appendingPathComponent(name).path, side: nil, fps: fps)
            lines.append(
                "\(name),\(String(format: "v%02d", viewer + 1)),advert,\(Double(leadFrames) / fps),\(seconds),\(version)"
            )
        }
        let manifest = folder.appendingPathComponent("manifest.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: manifest, atomically: true, encoding: .utf8)
        return manifest
    }

    private static func write(_ frames: [Frame], to path: String, side: Int?, fps: Double) throws {
        guard let first = frames.first else { return }
        let writer = try VideoWriter(path: path, width: first.width, height: first.height, framesPerSecond: fps)
        for frame in frames { try writer.write(frame) }
        try writer.finish()
    }
}
