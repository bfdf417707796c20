import Foundation
import MienTesting
import Testing

@testable import Mien
@testable import MienStudies

/// A study is honest about small groups: nothing tested or marked below the documented panel sizes (the notes
/// say "not testable" and why), its page is titled with the study and its n, and its first chart is a metric a
/// researcher of adverts looks at first.
@Suite("Study: panel sizes")
struct StudyPanelSizeTests {
    /// A participant of `group` whose smile is `level` (with a little noise), joy its half, over 20 bins of 1 s.
    static func viewer(_ name: String, group: String, level: Double, seed: Int) -> ParticipantSeries {
        var generator = MienTesting.SeededGenerator(seed: UInt64(seed) &+ 1)
        func series(_ base: Double) -> [Double?] {
            (0..<20).map { bin in
                base * (bin >= 5 && bin < 12 ? 1 : 0.2) + Double.random(in: 0..<4, using: &generator)
            }
        }
        let bins: [String: [Double?]] = [
            "expressions.smile": series(level), "emotions.joy": series(level / 2), "expressions.browRaise": series(90),
        ]
        return ParticipantSeries(
            row: StudyManifest.Row(
                line: seed + 2, recording: "\(name).mp4", participant: name, stimulus: "ad", onset: 0, group: group),
            faceId: 0, frames: 200, faceFrames: 200, faceShare: 1, facesSeen: 1, framesWithSeveralFaces: 0,
            exclusion: nil, notes: [], binCount: 20, bins: bins, episodeBins: [:], means: [:], episodeCounts: [:])
    }

    static func panel(_ a: Int, _ b: Int) -> [ParticipantSeries] {
        (0..<a).map { viewer("a\($0)", group: "A", level: 80, seed: $0) }
            + (0..<b).map { viewer("b\($0)", group: "B", level: 10, seed: 100 + $0) }
    }

    static var settings: StudySettings {
        var settings = StudySettings.standard
        settings.bin = 1
        settings.permutations = 200
        settings.title = "ad"
        return settings
    }

    @Test func smallGroups_areNotTestedNorMarked_andTheNotesSayWhy() throws {
        let study = Study(participants: Self.panel(2, 3), settings: Self.settings)
        #expect(!study.moments.contains { $0.kind == .difference })
        #expect(!study.moments.contains { $0.kind == .peak && $0.group != StudyManifest.wholePanel })
        #expect(!study.moments.contains { $0.kind == .response && $0.group != StudyManifest.wholePanel })
        let notes = study.notes.joined(separator: "\n")
        #expect(notes.contains("differences not testable: A has 2, B has 3 (a difference needs 4"), "\(notes)")
        #expect(notes.contains("ad, A: responses not testable: A has 2 (a response needs 6"), "\(notes)")
        #expect(!notes.contains("0 found"))
        let page = try StudyPage.render(study, generator: "test")
        #expect(page.contains("<h1>Study ad</h1>") && page.contains("<title>Study ad</title>"))
        #expect(page.contains("Participants included: all 5 · A 2 · B 3"))
        #expect(StudyPage.charted("ad", study: study).prefix(2) == ["expressions.smile", "emotions.joy"])
    }

    @Test func groupsAtTheDocumentedSizes_areTested_andAStrongDifferenceIsFound() throws {
        let study = Study(participants: Self.panel(4, 4), settings: Self.settings)
        #expect(study.moments.contains { $0.kind == .difference && $0.metric == "expressions.smile" })
        #expect(!study.notes.joined().contains("differences not testable"))
    }
}
