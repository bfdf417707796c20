/// One stimulus's progress as its frames come: frames received, analysed and with a face, and the share of its
/// time measured (with and without a face), as a stimulus socket counts it live and a recovery counts it again
/// from the results written.
package import Mien

package struct ProgressTally: Sendable {
    package private(set) var progress = ParticipantSession.StimulusProgress()
    private var measured: MeasuredTime
    private var withFace: FaceTime
    private var stillness = Stillness()

    /// - Parameters:
    ///   - duration: the stimulus's length, seconds (0: no time is measured, as for the framing check).
    ///   - span: seconds one analysed frame measures (`CollectionSettings.Fieldwork.frameSpan`).
    package init(duration: Double, span: Double) {
        measured = MeasuredTime(duration: duration, span: span)
        withFace = FaceTime(duration: duration)
    }

    /// A frame received, at `time` seconds of the stimulus.
    package mutating func received(at time: Double) {
        progress.frames += 1
        progress.lastTime = time
    }

    /// A frame's result: counted when it was analysed (a dropped frame's result has no faces).
    package mutating func add(_ result: DetectorResult) {
        guard let faces = result.faces else { return }
        progress.analysed += 1
        measured.add(result.timestamp)
        progress.coverage = measured.share
        if !faces.isEmpty { progress.withFace += 1 }
        withFace.add(result.timestamp, face: !faces.isEmpty)
        progress.faceCoverage = withFace.share
        // Live, the viewer is the largest face (the analysis takes the one seen longest: the same with one person).
        let viewer = faces.values.max { $0.faceBounds.width < $1.faceBounds.width }
        stillness.add(result.timestamp, face: viewer)
        if viewer != nil || progress.stillSeconds != nil {
            progress.stillSeconds = (stillness.longest * 10).rounded() / 10
        }
    }

    /// The viewer skipped the stimulus at `time` seconds: what was measured is a share of what played.
    package mutating func skipped(at time: Double) {
        measured.end(at: time)
        withFace.end(at: time)
        progress.coverage = measured.share
        if progress.faceCoverage != nil { progress.faceCoverage = withFace.share }
    }

    /// The page was asked for `rate` frames per second.
    package mutating func asked(rate: Double) { progress.lowestRate = min(progress.lowestRate ?? rate, rate) }
}
