import Foundation
import Mien

extension CollectionSettings {
    /// How fieldwork goes: who may come back, where those who cannot take part are sent, how far a busy server
    /// may slow pages down, what counts as measured, and the limits that keep anonymous clients from blocking a
    /// study.
    ///
    /// Every field has a default, so a `settings.json` written before these existed is read as it was meant.
    package struct Fieldwork: Sendable, Codable, Equatable {
        /// Minutes within which a participant who left may come back with the same ID.
        ///
        /// They left by a reload, a lost network, a closed tab or a server restart, and go on from the stimulus
        /// they were in. A completed ID never may.
        package var reentryMinutes = 60.0
        /// Where a participant who cannot take part is sent (declined, no camera, no face, study full), with
        /// `participant=`, `reason=` and, when set, `code=` appended; nil: they are told they may close the page.
        package var screenoutURL: String?
        /// The code a panel provider expects from a participant it screened out (`code=`).
        package var screenoutCode: String?
        /// Where a participant turned away because the study or their group is full goes (nil: `screenoutURL`,
        /// with `reason=full` or `reason=groupFull`).
        package var overquotaURL: String?
        /// The code a panel provider expects from a participant turned away as over quota (nil: `screenoutCode`).
        package var overquotaCode: String?
        /// The lowest rate, in frames per second, a busy server may ask pages for before anyone waits.
        package var minimumFrameRate = 5.0
        /// Share (0...1) of each stimulus's time that must be measured for a completion code: time around an
        /// analysed frame counts (up to two frame intervals at `minimumFrameRate`), gaps do not.
        package var minimumShare = 0.9
        /// Share (0...1) of each stimulus's time that must be measured with a face in view for a completion code.
        ///
        /// Frames with no face (a blank or covered camera) earn none. Nil: `defaultMinimumFaceShare`, kept out of
        /// `settings.json` so a study made before it keeps its settings' digest.
        package var minimumFaceShare: Double?
        /// The face share asked for when a study sets none: half of each stimulus, so a viewer who looks away or
        /// leaves the frame for a while is still paid while a camera that never shows a face is not.
        package static let defaultMinimumFaceShare = 0.5
        /// The face share in force.
        package var faceShareNeeded: Double { minimumFaceShare ?? Self.defaultMinimumFaceShare }
        /// Times one participant may start one stimulus (a reload, a re-entry, a stimulus measured too
        /// little); the earlier attempts are kept apart and labelled.
        package var attemptsPerStimulus = 3
        /// Minutes a consent that opened no socket holds its participant ID; then it expires and frees it.
        package var consentExpiryMinutes = 15.0
        /// Minutes without a sign from a started participant after which the dashboard lists them as
        /// abandoned (they may still come back within `reentryMinutes`); abandoned people do not count for
        /// group balance.
        package var abandonMinutes = 10.0
        /// Consents one address may make at once, then `consentsPerMinute` (HTTP 429 with `Retry-After` past it).
        package var consentBurst = 20
        package var consentsPerMinute = 10.0
        /// Whether consent needs the participant ID the panel's link carries (no ID is made up).
        package var requireParticipantID = false
        /// Completed participants wanted, by group; `all` for the whole study (the dashboard's targets).
        package var targets: [String: Int] = [:]
        /// Whether the targets close their group (or the study) to new consents once those complete and those
        /// still taking part reach them (`--targets close`, what `mien study init` writes); nil or false: the
        /// targets are only shown (`--targets display`, and studies made before targets could close).
        package var targetsClose: Bool?
        /// Whether everyone who completes counts toward a target (`--targets-count everyone`; some panels pay and
        /// count all who finished); nil or false: a participant whose viewing breaks the published rules
        /// (`ViewingRules.standard`, as `mien study` applies them) does not count, so the quota fills with usable
        /// viewers (they are still approved, paid and told "thank you").
        package var targetsCountEveryone: Bool?
        /// The panel provider's conventions for its links back (nil: `generic`, kept out of `settings.json`).
        package var panel: PanelConventions?
        /// The panel's conventions in force.
        package var panelConventions: PanelConventions { panel ?? .generic }
        /// The key a link's group is signed with (`GroupLink`), made by `mien study init` for a study with groups;
        /// nil in folders made before links were signed, whose links' groups are taken as given.
        package var groupLinkKey: String?
        /// Whether a link's `group=` is taken as given, unsigned (`--groups-from-link`; nil: no).
        package var groupsFromLink: Bool?

        /// The group a link gives: its `group` as given with `groupsFromLink` or without a key, otherwise only with
        /// the group's signature (`gs=`); nil when the server chooses.
        package func linkedGroup(_ group: String?, signature: String?) -> String? {
            guard let group else { return nil }
            guard groupsFromLink != true, let groupLinkKey else { return group }
            guard let signature, GroupLink.verify(group: group, signature: signature, key: groupLinkKey) else {
                return nil
            }
            return group
        }

        package init() {}

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let standard = Fieldwork()
            func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
                try container.decodeIfPresent(T.self, forKey: key) ?? fallback
            }
            reentryMinutes = try value(.reentryMinutes, standard.reentryMinutes)
            screenoutURL = try container.decodeIfPresent(String.self, forKey: .screenoutURL)
            screenoutCode = try container.decodeIfPresent(String.self, forKey: .screenoutCode)
            overquotaURL = try container.decodeIfPresent(String.self, forKey: .overquotaURL)
            overquotaCode = try container.decodeIfPresent(String.self, forKey: .overquotaCode)
            minimumFrameRate = try value(.minimumFrameRate, standard.minimumFrameRate)
            minimumShare = try value(.minimumShare, standard.minimumShare)
            minimumFaceShare = try container.decodeIfPresent(Double.self, forKey: .minimumFaceShare)
            attemptsPerStimulus = try value(.attemptsPerStimulus, standard.attemptsPerStimulus)
            consentExpiryMinutes = try value(.consentExpiryMinutes, standard.consentExpiryMinutes)
            abandonMinutes = try value(.abandonMinutes, standard.abandonMinutes)
            consentBurst = try value(.consentBurst, standard.consentBurst)
            consentsPerMinute = try value(.consentsPerMinute, standard.consentsPerMinute)
            requireParticipantID = try value(.requireParticipantID, standard.requireParticipantID)
            targets = try value(.targets, standard.targets)
            targetsClose = try container.decodeIfPresent(Bool.self, forKey: .targetsClose)
            targetsCountEveryone = try container.decodeIfPresent(Bool.self, forKey: .targetsCountEveryone)
            panel = try container.decodeIfPresent(PanelConventions.self, forKey: .panel)
            groupLinkKey = try container.decodeIfPresent(String.self, forKey: .groupLinkKey)
            groupsFromLink = try container.decodeIfPresent(Bool.self, forKey: .groupsFromLink)
        }

        /// Seconds of stimulus time one analysed frame measures: the time around it up to two frame intervals
        /// at the floor rate, so a page slowed to the floor still measures all of a stimulus while a gap of
        /// more than that counts as missing.
        package var frameSpan: Double { 2 / minimumFrameRate }

        func validate(groups: [String], frameRate: Double) throws {
            func refuse(_ message: String) -> MienError { MienError(.invalidOptions, message) }
            guard reentryMinutes >= 0, reentryMinutes.isFinite else {
                throw refuse("reentryMinutes must be 0 or more, got \(reentryMinutes)")
            }
            if let screenoutURL { try CollectionSettings.checkURL(screenoutURL, name: "the screen-out URL") }
            if let overquotaURL { try CollectionSettings.checkURL(overquotaURL, name: "the over-quota URL") }
            for (code, name) in [(screenoutCode, "screen-out"), (overquotaCode, "over-quota")] {
                if let code, !CollectionSettings.isName(code) {
                    throw refuse("the \(name) code must be 1-64 letters, digits, '_' or '-', got '\(code)'")
                }
            }
            guard minimumFrameRate > 0, minimumFrameRate <= frameRate else {
                throw refuse(
                    "minimumFrameRate must be within (0, frameRate = \(frameRate)] frames per second, got \(minimumFrameRate)"
                )
            }
            guard (0...1).contains(minimumShare) else {
                throw refuse("minimumShare must be within 0...1, got \(minimumShare)")
            }
            if let minimumFaceShare, !(0...1).contains(minimumFaceShare) {
                throw refuse("minimumFaceShare must be within 0...1, got \(minimumFaceShare)")
            }
            guard attemptsPerStimulus >= 1 else { throw refuse("attemptsPerStimulus must be at least 1") }
            guard consentExpiryMinutes > 0, abandonMinutes > 0 else {
                throw refuse("consentExpiryMinutes and abandonMinutes must be positive")
            }
            guard consentBurst >= 1, consentsPerMinute > 0 else {
                throw refuse("consentBurst must be at least 1 and consentsPerMinute positive")
            }
            for (group, target) in targets {
                guard group == StudyManifest.wholePanel || groups.contains(group) else {
                    throw refuse("a target names the group '\(group)', which the study does not have")
                }
                guard target >= 1 else { throw refuse("the target of \(group) must be at least 1, got \(target)") }
            }
        }
    }

    /// What the study's server stores of each analysed frame beyond the scores (what consent and `STORED.md`
    /// say is kept).
    package struct Stored: Sendable, Codable, Equatable {
        /// Perceived gender, apparent age and glasses (`MetricGroup.appearance`).
        package var appearance = true
        /// The 34 Affdex facial points of each face, in camera pixels.
        package var landmarks = true

        package init(appearance: Bool = true, landmarks: Bool = true) {
            self.appearance = appearance
            self.landmarks = landmarks
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            appearance = try container.decodeIfPresent(Bool.self, forKey: .appearance) ?? true
            landmarks = try container.decodeIfPresent(Bool.self, forKey: .landmarks) ?? true
        }
    }

    /// Who runs the study, shown on the participant page and in the consent text.
    package struct Researcher: Sendable, Codable, Equatable {
        /// A person or team (for example "Dr Ada Lovelace, Example University").
        package var name: String?
        /// Where a participant asks a question or asks for their data to be deleted (an e-mail address or a
        /// URL).
        package var contact: String?
        /// How long participants' data is kept, in words for the consent ("until 31 December 2028").
        package var retention: String?

        package init(name: String? = nil, contact: String? = nil, retention: String? = nil) {
            self.name = name
            self.contact = contact
            self.retention = retention
        }
    }

    /// - Throws: `.invalidOptions` unless `text` is an http(s) URL.
    static func checkURL(_ text: String, name: String) throws {
        guard let url = URL(string: text), ["https", "http"].contains(url.scheme?.lowercased() ?? "") else {
            throw MienError(.invalidOptions, "\(name) must be an http(s) URL, got '\(text)'")
        }
    }

    /// `base` with `items` appended to its query (a completion or screen-out redirect); nil when it is not a URL.
    package static func redirect(_ base: String?, _ items: [(String, String?)]) -> String? {
        guard let base, var components = URLComponents(string: base) else { return nil }
        components.queryItems =
            (components.queryItems ?? [])
            + items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        return components.string
    }
}
