import Foundation
import Testing

@testable import Mien
@testable import MienStudies

/// study.html lists no row of noise and cuts no label (issue 98 item 3).
@Suite("study.html without noise")
struct StudyPageNoiseTests {
    @Test func shortStalls_areCounted_longOnesListed_andLongLabelsSqueezedNotCut() throws {
        var (study, _, _) = try StudyKPIsTests.panel()
        for index in study.participants.indices where study.participants[index].included {
            var figures = ViewingFigures(
                hiddenSeconds: 0, outOfFullscreenSeconds: 0, unfocusedSeconds: 0, stalls: 1, stallSeconds: 0.007,
                seeks: 0, cameraFps: 15, timingSpreadMs: 50)
            // Every viewer's player starts with a 7-ms stall; p3's stimulus also waited 1.5 s at 0.6 s.
            figures.stallSpans = [0...0.007] + (index == 3 ? [0.6...2.1] : [])
            study.participants[index].row.viewing = figures
        }
        study.participants[0].row.participant = "P12-lapsed-viewer"
        let page = try StudyPage.render(
            Study(participants: study.participants, settings: study.settings), generator: "t")
        #expect(page.contains("p3: stalled at 0.6 s for 1.5 s"), "the long stall is listed")
        #expect(!page.contains("stalled at 0 s"), "no 7-ms stall listed one by one")
        #expect(page.contains("9 stalls shorter than 0.25 s (a player starting or catching up) not listed one by one."))
        // The long label is whole, squeezed into the margin.
        #expect(page.contains("lengthAdjust=\"spacingAndGlyphs\">P12-lapsed-viewer · A</text>"), "the label is whole")
    }
}
