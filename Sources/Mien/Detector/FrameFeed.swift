/// Where a run's frames come from, and what that source's failures, end and stop mean: one type per kind of
/// source, chosen by `start()` from the detector's source and what opening it found (`DetectorSource.feed`).
///
/// The three parts of a run are this feed, the two-stage analysis (`DetectorEngine`) and the delivery
/// (`WriterGroup`, the delegate and `results` among its writers). What used to be flags asked on every frame
/// (does the detector read this source, is it live, is it a folder) are the answers these types give.
protocol FrameFeed: Sendable {
    /// Starts whatever puts frames into the run's inbox besides the caller (the reading thread).
    func start(_ run: DetectorRun)
    /// Whether the analysis takes the next entry of the inbox.
    func analysisGoesOn(_ run: DetectorRun) -> Bool
    /// Whether the input goes on after an item that could not be read or analysed and that nobody waits for
    /// (`arrival` nil: an unreadable item the reader reported).
    func goesOn(after error: MienError, arrival: FrameInbox.Arrival?) -> Bool
    /// The analysis ended: the inbox was closed and emptied (`normally`), or the run failed or stopped.
    func analysisEnded(_ run: DetectorRun, normally: Bool)
    /// What `stop()` does with frames still waiting, and how the run then ends.
    var stopping: (discardsWaiting: Bool, end: InputEnd) { get }
}

/// Frames the caller pushes (`push(_:)`, `process(_:)`): everything pushed is analysed, even after `stop()`
/// (no `process(_:)` waits in vain); a frame that fails is reported and the next one goes on; the input ends
/// only when its caller stops it.
struct PushedFeed: FrameFeed {
    func start(_ run: DetectorRun) {}
    func analysisGoesOn(_ run: DetectorRun) -> Bool { true }
    func goesOn(after error: MienError, arrival: FrameInbox.Arrival?) -> Bool { true }
    func analysisEnded(_ run: DetectorRun, normally: Bool) {}
    var stopping: (discardsWaiting: Bool, end: InputEnd) { (false, .complete) }
}

/// A source the detector reads on its own thread (`SourceReader`): what `RecordingFeed` and `LiveFeed` share.
protocol ReadFeed: FrameFeed {
    var reader: SourceReader { get }
    /// The inbox was emptied after the source's last frame, and the run is still open.
    func sourceEnded(_ run: DetectorRun)
}

extension ReadFeed {
    func start(_ run: DetectorRun) {
        run.startThread { reader.read(into: run) }
    }

    func analysisGoesOn(_ run: DetectorRun) -> Bool { run.isOpen }

    /// A folder's pictures are unrelated: one that fails is reported and the others go on.
    ///
    /// In a video or a camera's stream nothing after a failure can be trusted.
    func goesOn(after error: MienError, arrival: FrameInbox.Arrival?) -> Bool {
        arrival == nil || reader.itemsStandAlone
    }

    func analysisEnded(_ run: DetectorRun, normally: Bool) {
        if normally && run.isOpen {
            if let failure = run.inbox.endedBy {
                run.fail(failure)
            } else {
                sourceEnded(run)
            }
        }
        // A reading thread waiting for room must not wait forever once nobody takes frames.
        run.inbox.close(discarding: true)
    }

    /// Frames read and not yet analysed are abandoned; the input ended early.
    var stopping: (discardsWaiting: Bool, end: InputEnd) { (true, .stopped) }
}

/// A file, a folder or a `.source` read like one: every frame analysed; its end is the end of the run,
/// reported to the delegate as `detectorDidFinishProcessing`.
struct RecordingFeed: ReadFeed {
    let reader: SourceReader

    func sourceEnded(_ run: DetectorRun) {
        run.close()
        run.end(.complete, readToEnd: true)
    }
}

/// A camera or a live source: frames the analysis cannot keep up with are dropped.
///
/// A live source that ends is not a file read to its end: the writers finish, no `finished` callback, and the run stays open until
/// `stop()`.
struct LiveFeed: ReadFeed {
    let reader: SourceReader

    func sourceEnded(_ run: DetectorRun) {
        run.end(.complete)
    }
}

extension DetectorSource {
    /// The feed for a run of this source; `opened` is the source `start()` opened (nil for pushed frames).
    func feed(opened: SourceReader.Box?, maximumFrames: Int?, plan: ResumePlan) -> any FrameFeed {
        guard let opened else { return PushedFeed() }
        var reader = SourceReader(
            box: opened, name: inputName ?? opened.source.name, maximumFrames: maximumFrames ?? .max,
            // A resumed stream reads every frame again (analysed, not delivered, up to the break); pictures
            // that stand alone are read from the break on.
            skipThrough: plan.skipThrough, itemsStandAlone: opened.source.info.kind == .imageFolder)
        reader.skipThroughTime = plan.skipThroughTime
        return isLive ? LiveFeed(reader: reader) : RecordingFeed(reader: reader)
    }
}
