import Foundation
import Mien
import MienCore

/// What a stimulus socket's page said of the viewing, as it said it: `{"type":"viewing", …}` messages decoded,
/// checked (`Viewing.adding`) and kept for the attempt's progress.
///
/// A message carries one `event` (`{"kind":"hidden","at":12.3}`), or the attempt's `camera` and `screen` (at
/// its start), or its `playback` and `timing` (before its end). A refused message changes nothing; the page is
/// told why for the first few and then once per `quietAfter`, so a page sending millions cannot flood its socket.
package struct ViewingLog: Sendable {
    package init() {}

    package private(set) var viewing = Viewing()
    /// Whether any message was kept (nil progress: "viewing not recorded").
    package private(set) var recorded = false
    /// The page said it is hidden and has not said it is visible again.
    package private(set) var hidden = false

    /// Refusals told to the page before it is told only once per this many.
    package static let quietAfter = 1000

    /// The largest count of frames a page may report (a day of video at 1,000 frames a second is 86.4 million):
    /// every number from a client is range-checked where it arrives (issue 94: a timing `p95` of 1e19 passed as
    /// finite and a later conversion to an integer crashed the server).
    package static let maximumFrames = 100_000_000
    /// The largest timing figure, milliseconds: a minute between a camera frame and the stimulus frame on screen is
    /// not a timing.
    package static let maximumTimingMs = 60_000.0

    private struct Message: Decodable {
        var event: Viewing.Event?
        var camera: Viewing.Camera?
        var screen: Viewing.Screen?
        var playback: Viewing.Playback?
        var timing: Viewing.Timing?
    }

    /// Takes one message of a stimulus lasting `duration` seconds that may be skipped after `skippableAfter`.
    /// - Returns: what to tell the page when the message was refused (nil when kept, or refused quietly).
    package mutating func receive(_ text: String, duration: Double?, skippableAfter: Double? = nil) -> String? {
        do {
            let message = try JSONDecoder().decode(Message.self, from: Data(text.utf8))
            if let event = message.event {
                try viewing.adding(event, duration: duration, skippableAfter: skippableAfter)
                if event.kind == .hidden { hidden = true }
                if event.kind == .visible { hidden = false }
            }
            if let camera = message.camera {
                guard (1...16384).contains(camera.width), (1...16384).contains(camera.height),
                    camera.frameRate.map({ $0.isFinite && $0 >= 0 && $0 <= 1000 }) ?? true
                else { throw refusal("the camera's settings are not a camera's") }
                viewing.camera = camera
            }
            if let screen = message.screen {
                guard (1...65536).contains(screen.width), (1...65536).contains(screen.height) else {
                    throw refusal("the screen's size is not a screen's")
                }
                viewing.screen = screen
            }
            if let playback = message.playback {
                guard
                    [playback.presentedFrames, playback.droppedFrames, playback.totalFrames].allSatisfy({
                        (0...Self.maximumFrames).contains($0 ?? 0)
                    })
                else { throw refusal("frame counts are 0 to \(Self.maximumFrames)") }
                viewing.playback = playback
            }
            if let timing = message.timing {
                guard ["frameCallback", "cameraDisplay"].contains(timing.method),
                    (0...Self.maximumFrames).contains(timing.frames),
                    [timing.median, timing.p95, timing.max].allSatisfy({ (0...Self.maximumTimingMs).contains($0) })
                else {
                    throw refusal(
                        "the timing figures are milliseconds (0 to \(Int(saturating: Self.maximumTimingMs))) of a method, over 0 to \(Self.maximumFrames) frames"
                    )
                }
                viewing.timing = timing
            }
            recorded = true
            return nil
        } catch let refusal as Viewing.Refusal {
            return told(refusal.description)
        } catch {
            viewing.refused += 1
            return told(
                #"a viewing message is {"type":"viewing","event":{"kind":"hidden","at":12.3}} (kinds: \#(Viewing.Kind.allCases.map(\.rawValue).joined(separator: ", "))), or the attempt's camera, screen, playback or timing"#
            )
        }
    }

    /// A refusal of something other than an event (`Viewing.adding` counts those itself), counted.
    private mutating func refusal(_ words: String) -> Viewing.Refusal {
        viewing.refused += 1
        return Viewing.Refusal(description: words)
    }

    private func told(_ words: String) -> String? {
        viewing.refused <= 3 || viewing.refused % Self.quietAfter == 0 ? words : nil
    }

    /// The attempt's viewing for its progress: nil when the page sent nothing.
    package var kept: Viewing? { recorded || viewing.refused > 0 ? viewing : nil }
}
