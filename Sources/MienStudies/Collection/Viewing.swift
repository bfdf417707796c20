import Foundation
import Mien

/// What a participant's page recorded of one stimulus attempt besides the face: when the page was hidden, full
/// screen left, the window out of focus, the stimulus stalled, sought or played at another rate, how many of its
/// frames were shown and dropped, the camera and screen it ran on, and how far its frame stamps can be off.
///
/// Times are the stimulus's own (seconds from its start, as the frames are stamped). Every event is checked as it
/// arrives (`adding`): an impossible one is refused, saying why, and never breaks the session.
package struct Viewing: Sendable, Codable, Equatable {
    /// What happened.
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// The page was hidden (another tab, the window minimised, the phone locked) and shown again.
        case hidden, visible
        /// Full screen was left and entered again.
        case fullscreenExit, fullscreenEnter
        /// The window lost and got back the keyboard focus (another window in front).
        case blur, focus
        /// Playback waited for data (`length`: seconds until it played again).
        case stall
        /// The viewer or the browser moved the playback position (`to`: where to, in seconds).
        case seek
        /// The playback rate changed (`rate`).
        case rate
        /// The viewer pressed Skip, where the study shows one (`mien study init --skippable-after`): the stimulus
        /// ended there.
        case skip
    }

    /// One event, at a time of the stimulus.
    package struct Event: Sendable, Codable, Equatable {
        package var kind: Kind
        /// Seconds from the stimulus's start.
        package var at: Double
        /// A stall's length, seconds.
        package var length: Double?
        /// A seek's destination, seconds.
        package var to: Double?
        /// A rate change's new rate (1 is normal speed).
        package var rate: Double?

        package init(kind: Kind, at: Double, length: Double? = nil, to: Double? = nil, rate: Double? = nil) {
            self.kind = kind
            self.at = at
            self.length = length
            self.to = to
            self.rate = rate
        }
    }

    /// The camera's delivered picture and frame rate (`MediaStreamTrack.getSettings()`).
    package struct Camera: Sendable, Codable, Equatable {
        package var width: Int
        package var height: Int
        /// Frames per second the camera delivers.
        package var frameRate: Double?

        package init(width: Int, height: Int, frameRate: Double?) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
        }
    }

    /// The screen's size in CSS pixels.
    package struct Screen: Sendable, Codable, Equatable {
        package var width: Int
        package var height: Int
    }

    /// The stimulus's frames the browser presented and dropped during the attempt.
    package struct Playback: Sendable, Codable, Equatable {
        /// Frames shown (`requestVideoFrameCallback`'s `presentedFrames`, or the playback quality's total minus
        /// dropped).
        package var presentedFrames: Int?
        /// Frames the browser dropped (`getVideoPlaybackQuality().droppedVideoFrames`).
        package var droppedFrames: Int?
        /// Frames the browser decoded for display (`getVideoPlaybackQuality().totalVideoFrames`).
        package var totalFrames: Int?
    }

    /// How far the page's frame stamps can be off: per camera frame sent, milliseconds between the camera's capture
    /// and the moment the stimulus time it is stamped with was on screen.
    package struct Timing: Sendable, Codable, Equatable {
        /// How the spread was measured: `frameCallback` or `cameraDisplay`.
        ///
        /// `frameCallback`: the camera frame's capture and the stimulus frames' display times from
        /// `requestVideoFrameCallback` (the stamp is the stimulus frame on screen at the capture). `cameraDisplay`:
        /// the browser gives no capture time, and the camera frame's display in the page's preview stands for it,
        /// later than the capture by the camera's own delay. A page without frame callbacks stamps with the
        /// video's `currentTime` and sends no timing: none is claimed.
        package var method: String
        /// Camera frames the figures are over.
        package var frames: Int
        /// Median and 95th percentile of the spread, milliseconds.
        package var median: Double
        package var p95: Double
        package var max: Double

        package init(method: String, frames: Int, median: Double, p95: Double, max: Double) {
            self.method = method
            self.frames = frames
            self.median = median
            self.p95 = p95
            self.max = max
        }
    }

    package var events: [Event] = []
    /// Events refused (impossible times, over the limit), each told to the page with why.
    package var refused = 0
    package var camera: Camera?
    package var screen: Screen?
    package var playback: Playback?
    package var timing: Timing?

    package init() {}

    /// Events kept per attempt at most (a page sending more is told, and the rest are counted as refused).
    package static let limit = 2000

    /// An event a little past the stimulus's end (a timer's last tick, the `ended` event's time) is taken as at its
    /// end; further than this is refused.
    package static let endSlack = 1.0

    /// Why an event was refused, in words for the page.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    /// When the viewer skipped the stimulus (seconds of it), nil when they did not.
    package var skippedAt: Double? { events.first { $0.kind == .skip }?.at }

    /// Records `event` of a stimulus lasting `duration` seconds (nil: unknown) that may be skipped after
    /// `skippableAfter` seconds (nil: no Skip button).
    /// - Throws: `Refusal` for a time that is not a number, negative, past the end, or earlier than the previous
    ///   event's without a seek between (events come in playback order), for a negative or endless stall or rate,
    ///   a skip where the study has no Skip button, before it shows or after another, and past `limit`; the
    ///   refused event is counted and nothing else changes.
    package mutating func adding(_ event: Event, duration: Double?, skippableAfter: Double? = nil) throws {
        do {
            if event.kind == .skip {
                guard let skippableAfter else {
                    throw Refusal(description: "this study shows no Skip button: a skip is not a viewing event of it")
                }
                guard skippedAt == nil else { throw Refusal(description: "the stimulus was already skipped") }
                // Half a second of slack: the button shows on a timer's tick.
                guard event.at.isFinite, event.at >= skippableAfter - 0.5 else {
                    throw Refusal(
                        description:
                            "a skip at \(Self.seconds(event.at)) comes before the Skip button shows (\(Self.seconds(skippableAfter)))"
                    )
                }
            }
            events.append(try checked(event, duration: duration))
        } catch {
            refused += 1
            throw error
        }
    }

    private func checked(_ event: Event, duration: Double?) throws -> Event {
        guard events.count < Self.limit else {
            throw Refusal(description: "more than \(Self.limit) viewing events in one attempt; the rest are not kept")
        }
        var event = event
        event.at = try time(event.at, "its time", duration: duration)
        if let to = event.to { event.to = try time(to, "the time sought to", duration: duration) }
        if let length = event.length {
            guard length.isFinite, length >= 0, length <= 3600 else {
                throw Refusal(description: "a stall of \(length) s is not a length (0 to 3600 s)")
            }
        }
        if let rate = event.rate {
            guard rate.isFinite, rate >= 0, rate <= 16 else {
                throw Refusal(description: "a playback rate of \(rate) is not one a browser plays at (0 to 16)")
            }
        }
        // Playback goes forward; only a seek (or a stall's start, reported once playing again) moves it back. A
        // timer's stamp may lag the event before it by a frame or two.
        if let position = position, event.at < position - 0.5 {
            throw Refusal(
                description:
                    "a \(event.kind.rawValue) event at \(Self.seconds(event.at)) comes after one at \(Self.seconds(position)): events are sent in playback order"
            )
        }
        return event
    }

    /// Where playback was at the last event: its time, or where a seek went.
    private var position: Double? {
        guard let last = events.last else { return nil }
        return last.kind == .seek ? (last.to ?? last.at) : last.at
    }

    private func time(_ value: Double, _ name: String, duration: Double?) throws -> Double {
        guard value.isFinite, value >= 0 else {
            throw Refusal(description: "a viewing event's time must be 0 s or later (\(name) was \(value))")
        }
        guard let duration else { return value }
        guard value <= duration + Self.endSlack else {
            throw Refusal(
                description:
                    "\(name) \(Self.seconds(value)) is past the stimulus's end (\(Self.seconds(duration))); not kept")
        }
        return min(value, duration)
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
}
