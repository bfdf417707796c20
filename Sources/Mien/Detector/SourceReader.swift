/// The reading thread of a source the detector reads itself: every frame into the run's inbox, in order (from
/// `options.resume`'s point, up to `options.maximumFrames`), then the inbox closed, with the reason when the
/// source failed.
///
/// Reading is its own thread so that decoding frame n + 1 overlaps the analysis of frame n (on 2 cores the
/// difference between paying decode + analysis per frame and paying the larger of the two).
struct SourceReader: Sendable {
    /// A frame source that may be moved to the reading thread.
    final class Box: @unchecked Sendable {
        // Handed from `start()` to exactly one reading thread, which is then its only user.
        let source: any FrameSource
        init(_ source: any FrameSource) { self.source = source }
    }

    let box: Box
    /// The name errors give: the one the caller gave (a service's client name, not the path it was saved under).
    let name: String
    let maximumFrames: Int
    /// Frames up to this index are read and not analysed (-1: none).
    let skipThrough: Int
    /// The time of frame `skipThrough`, seconds, when known (a resumed video then seeks to it).
    var skipThroughTime: Double? = nil
    /// Whether the source's items are unrelated pictures (a folder): one that cannot be read is reported and
    /// the others go on.
    let itemsStandAlone: Bool

    /// Opens `source`; nil for pushed frames.
    static func open(_ source: DetectorSource) throws -> Box? {
        switch source {
        case .camera(let device, let width, let height):
            Box(try InputSource.openCamera(device, width: width, height: height))
        case .file(let path, let interval):
            Box(try InputSource.open(path: path, imageInterval: interval ?? 0))
        case .source(_, _, let open):
            Box(try open())
        case .pushed:
            nil
        }
    }

    func read(into run: DetectorRun) {
        var read = 0
        var failure: MienError?
        // A video numbers its frames from 0 as it reads them: the frames through `skipThrough` are passed over
        // by seeking (the loop below would decode and convert each, then drop it).
        if skipThrough >= 0, skipThrough < maximumFrames, let video = box.source as? any SkippingFrameSource {
            do {
                read = try video.skip(through: skipThrough, at: skipThroughTime)
            } catch {
                failure = Detector.mienError(error, input: name)
                read = maximumFrames
            }
        }
        while run.isOpen && read < maximumFrames {
            let frame: Frame
            do {
                guard let next = try box.source.nextFrame() else { break }
                frame = next
            } catch {
                let error = Detector.mienError(error, input: name)
                guard itemsStandAlone else {
                    failure = error
                    break
                }
                guard run.inbox.putUnreadable(error) else { return }
                continue
            }
            read += 1
            guard frame.index > skipThrough else { continue }
            do {
                try run.inbox.put(frame)
            } catch let error as MienError where error.code == .nonMonotonicTimestamp {
                // A stream whose time goes back cannot be tracked: the run fails on it.
                failure = MienError(.nonMonotonicTimestamp, "frame \(frame.index): \(error.message)", input: name)
                break
            } catch {
                return  // closed: the detector stopped or failed
            }
        }
        run.inbox.close(failure: failure)
    }
}
