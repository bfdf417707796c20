import Foundation
import Mien
import MienCore
import MienStudies

/// Carries the budget's rate changes to a socket's stream once it exists (a change may come before).
final class RateRelay: Sendable {
    private let state = Locked<(stream: StimulusStream?, pending: Double?)>((nil, nil))

    func set(_ rate: Double) {
        let stream = state.withLock { state -> StimulusStream? in
            if state.stream == nil { state.pending = rate }
            return state.stream
        }
        stream?.setRate(rate)
    }

    func attach(_ stream: StimulusStream) {
        let pending = state.withLock { state -> Double? in
            state.stream = stream
            defer { state.pending = nil }
            return state.pending
        }
        if let pending { stream.setRate(pending) }
    }

    /// The stream's progress and rate (nothing measured before it exists).
    func progress() -> (ParticipantSession.StimulusProgress, Double) {
        state.withLock { $0.stream }?.liveProgress() ?? (.init(), 0)
    }
}
