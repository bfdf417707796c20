import Foundation
import Testing

@testable import Mien
@testable import MienStudies

/// A collected study's folder: its settings refused when they cannot be served, and the manifests written from
/// the participants' sessions.
@Suite("Collected study folder")
struct CollectionTests {
    static func stimulus(_ name: String = "ad", duration: Double = 30) -> CollectionSettings.Stimulus {
        .init(name: name, file: "\(name).mp4", sha256: String(repeating: "0", count: 64), duration: duration)
    }

    static func folder() throws -> CollectionFolder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mien-collection-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return CollectionFolder(url)
    }

    @Test func settings_refuseWhatCannotBeServed_namingTheField() throws {
        let good = try CollectionSettings(stimuli: [Self.stimulus()], groups: ["A", "B"], consent: "ok")
        #expect(good.frameRate == 10 && good.order == .fixed && !good.record)
        let cases: [(String, () throws -> CollectionSettings)] = [
            ("at least one stimulus", { try CollectionSettings(stimuli: [], consent: "ok") }),
            ("stimulus name", { try CollectionSettings(stimuli: [Self.stimulus("../x")], consent: "ok") }),
            ("share a name", { try CollectionSettings(stimuli: [Self.stimulus(), Self.stimulus()], consent: "ok") }),
            ("group", { try CollectionSettings(stimuli: [Self.stimulus()], groups: ["a b"], consent: "ok") }),
            ("frameRate", { try CollectionSettings(stimuli: [Self.stimulus()], consent: "ok", frameRate: 90) }),
            ("duration", { try CollectionSettings(stimuli: [Self.stimulus(duration: 0)], consent: "ok") }),
            (
                "completion URL",
                {
                    try CollectionSettings(
                        stimuli: [Self.stimulus()], consent: "ok", completionURL: "javascript:alert(1)")
                }
            ),
            (
                "maximumParticipants",
                { try CollectionSettings(stimuli: [Self.stimulus()], consent: "ok", maximumParticipants: 0) }
            ),
            ("minimumFrameRate", { try Self.fieldwork { $0.minimumFrameRate = 20 } }),
            ("minimumShare", { try Self.fieldwork { $0.minimumShare = 1.5 } }),
            ("screen-out URL", { try Self.fieldwork { $0.screenoutURL = "javascript:alert(1)" } }),
            ("screen-out code", { try Self.fieldwork { $0.screenoutCode = "a b" } }),
            ("'C'", { try Self.fieldwork { $0.targets = ["C": 3] } }),
            ("consentBurst", { try Self.fieldwork { $0.consentBurst = 0 } }),
            ("attemptsPerStimulus", { try Self.fieldwork { $0.attemptsPerStimulus = 0 } }),
        ]
        for (words, make) in cases {
            do {
                _ = try make()
                Issue.record("accepted: \(words)")
            } catch let error as MienError {
                #expect(error.code == .invalidOptions && error.message.contains(words), "\(error.message)")
            }
        }
    }

    /// Settings with the fieldwork `change` makes (groups A and B).
    static func fieldwork(_ change: (inout CollectionSettings.Fieldwork) -> Void) throws -> CollectionSettings {
        var fieldwork = CollectionSettings.Fieldwork()
        change(&fieldwork)
        return try CollectionSettings(stimuli: [stimulus()], groups: ["A", "B"], consent: "ok", fieldwork: fieldwork)
    }

    @Test func settingsWrittenBeforeFieldwork_areReadWithItsDefaults() throws {
        let old = #"{"consent":"ok","stimuli":[{"duration":30,"file":"ad.mp4","name":"ad","sha256":"0"}]}"#
        let settings = try JSONDecoder().decode(CollectionSettings.self, from: Data(old.utf8))
        #expect(settings.fieldwork == CollectionSettings.Fieldwork() && settings.stored == .init())
        #expect(settings.framing.attempts == 3 && settings.researcher.contact == nil)
    }

    @Test func names_keepPathsOut() {
        for name in ["p1", "PROLIFIC_5f3a-9", String(repeating: "a", count: 64)] {
            #expect(CollectionSettings.isName(name), "\(name)")
        }
        for name in ["", "..", "a/b", "a.b", "x y", "é", String(repeating: "a", count: 65), "%2e%2e"] {
            #expect(!CollectionSettings.isName(name), "\(name)")
        }
    }

    @Test func settings_readBack_andAHandEditedBadValueIsRefusedNamingTheFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let settings = try CollectionSettings(
            stimuli: [Self.stimulus()], groups: ["A"], order: .counterbalanced, consent: "ok", record: true)
        try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
        #expect(try CollectionSettings.read(folder: folder.url) == settings)
        let edited = String(decoding: try settings.encoded(), as: UTF8.self)
            .replacingOccurrences(of: "\"frameRate\" : 10", with: "\"frameRate\" : -1")
        try CollectionFolder.writeAtomically(Data(edited.utf8), to: folder.settings.path)
        #expect {
            try CollectionSettings.read(folder: folder.url)
        } throws: { error in
            (error as? MienError)?.input == folder.settings.path && "\(error)".contains("frameRate")
        }
    }

    @Test func manifests_listMeasuredStimuliOnStimulusTime_andRecordingsOnceUploaded() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let settings = try CollectionSettings(
            stimuli: [Self.stimulus("ad"), Self.stimulus("trailer", duration: 60)], groups: ["A", "B"], consent: "ok")
        var watched = ParticipantSession(
            participant: "p1", number: 1, group: "A", order: ["ad", "trailer"], tokenDigest: "d", started: "t")
        watched.stimuli["ad"] = .init()
        watched.stimuli["ad"]?.frames = 300
        watched.stimuli["ad"]?.coverage = 1
        watched.stimuli["ad"]?.recordingOnset = 1.25
        watched.stimuli["trailer"] = .init()  // opened, nothing arrived: no row
        let nothing = ParticipantSession(
            participant: "p2", number: 2, group: "B", order: ["ad"], tokenDigest: "e", started: "t")
        try folder.writeManifests([nothing, watched], settings: settings)
        let manifest = try StudyManifest(path: folder.manifest.path)
        #expect(manifest.rows.map(\.participant) == ["p1"])
        #expect(
            manifest.rows.first?.onset == 0 && manifest.rows.first?.duration == 30 && manifest.rows.first?.group == "A")
        #expect(manifest.rows.first?.status == "started" && manifest.rows.first?.measured == 1)
        #expect(manifest.rows.first?.recording == folder.url.appendingPathComponent("participants/p1/ad").path)
        #expect(!FileManager.default.fileExists(atPath: folder.recordedManifest.path), "no recording uploaded yet")
        #expect(abs(watched.coverage(of: settings) - 30.0 / 90) < 1e-9)

        watched.recordingComplete = true
        try folder.writeManifests([watched], settings: settings)
        let recorded = try StudyManifest(path: folder.recordedManifest.path)
        #expect(recorded.rows.first?.onset == 1.25)
        #expect(recorded.rows.first?.recording.hasSuffix("participants/p1/recording.webm") == true)

        // A row whose results are missing is excluded with the reason, not thrown.
        let series = CollectionFolder.series(of: manifest, settings: .standard, watched: { _ in true })
        #expect(series.first?.exclusion?.contains("no results") == true)
    }
}
