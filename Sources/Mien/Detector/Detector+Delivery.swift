import Foundation

/// Where every result goes: the delegate, `results`, the writers and a waiting `process(_:)`.
extension Detector {
    /// Hands one result to everyone who wants it.
    ///
    /// Names the input, renumbers a resumed run's faces, stamps the latency, then calls the delegate in
    /// Affdex's order, feeds the sequence and the writers, and last the caller waiting for it. A writer that
    /// fails stops the input.
    func deliver(_ result: DetectorResult, frame: Frame?, arrival: FrameInbox.Arrival) {
        var result = result
        result.input = result.input ?? source.inputName
        if let resume = options.resume {
            let first = control.withLock { state -> Bool in
                defer { state.firstDelivery = false }
                return state.firstDelivery
            }
            result = resume.renumbered(result, first: first)
        }
        result.latency = arrival.instant.duration(to: .now)
        let delegate = self.delegate
        let returned = Set(result.returned ?? [])
        for id in result.found {
            guard let face = result.faces?[id] else { continue }
            if returned.contains(id) {
                delegate?.detector(self, didFindReturning: face)
            } else {
                delegate?.detector(self, didFind: face)
            }
        }
        delegate?.detector(self, didProcess: result)
        for id in result.lost { delegate?.detector(self, didLoseFace: id) }
        if control.withLock({ $0.feedsStream }) { continuation.yield(result) }
        if let failure = writers.write(result, frame: frame) { fail(failure) }
        arrival.reply?.fulfil(.success(result))
    }

    /// Ends the run on `error`: the delegate hears it, `results` ends, the writers finish with it.
    func fail(_ error: any Error) {
        let mienError = error as? MienError ?? MienError(.internalFailure, "\(error)")
        delegate?.detector(self, didFail: mienError)
        control.withLock { $0.running = false }
        continuation.finish()
        end(.failed(mienError))
    }
}
