import Foundation

/// Where every result goes: the writers (the delegate and `results` among them) and a waiting `process(_:)`.
extension Detector {
    /// Hands one result to everyone who wants it.
    ///
    /// Names the input, closes the faces a resumed run's break left open, stamps the latency, then calls the
    /// delegate in Affdex's order, feeds the sequence and the writers, and last the caller waiting for it. A
    /// writer that fails stops the input.
    func deliver(_ result: DetectorResult, frame: Frame?, arrival: FrameInbox.Arrival) {
        var result = result
        result.input = result.input ?? source.inputName
        result.file = result.file ?? frame?.file
        let replayUntil = control.withLock { $0.replayUntil }
        if let resume = options.resume, replayUntil == nil {
            // Pictures that stand alone: IDs continue from `resume.nextFaceId` (the engine's allocator starts
            // there); the faces open at the break are lost on the first frame this run reports.
            let first = control.withLock { state -> Bool in
                defer { state.firstDelivery = false }
                return state.firstDelivery
            }
            if first { result.events = resume.openFaces.map { .lost(faceId: $0) } + result.events }
        }
        result.episodes =
            episodes.withLock { tracker in
                guard tracker != nil else { return nil }
                // A cut ends the old shot's episodes before the new shot's frame is looked at.
                let ended = result.shotCut ? tracker?.cut() ?? [] : []
                return ended + (tracker?.update(&result) ?? [])
            } ?? []
        // A resumed stream's frames up to the break were analysed again only to restore its state: the
        // stopped run already delivered them (its checkpoint is replayed into the writers).
        if let replayUntil, result.frameIndex <= replayUntil { return }
        result.latency = arrival.instant.duration(to: .now)
        // The delegate and `results` first (`CallbackWriter`), then the caller's writers.
        if let failure = writers.write(result, frame: frame) { fail(failure) }
        arrival.reply?.fulfil(.success(result))
    }

    /// Ends the run on `error`: the writers finish with it (the delegate hears it, `results` ends).
    func fail(_ error: any Error) {
        let mienError = error as? MienError ?? MienError(.internalFailure, "\(error)")
        control.withLock { $0.running = false }
        end(.failed(mienError))
    }
}
