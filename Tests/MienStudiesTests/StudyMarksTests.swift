import Foundation
import MienTesting
import Testing

@testable import Mien
@testable import MienStudies

/// Marks on a stimulus (`--marks`): written and read back, checked against the stimuli, drawn on the charts.
@Suite("Study marks")
struct StudyMarksTests {
    static let durations = ["ad": 30.0, "other": 15.0]

    @Test func marks_areParsed_checked_andReadBackFromMarksCSV() throws {
        let given =
            try StudyMark.parse("ad:brand=12.4,27", stimuli: ["ad", "other"])
            + StudyMark.parse("other:offer=2", stimuli: ["ad", "other"])
        let marks = try StudyMark.checked(given, durations: Self.durations)
        #expect(
            marks.map { "\($0.stimulus) \($0.name) \($0.time)" } == [
                "ad brand 12.4", "ad brand 27.0", "other offer 2.0",
            ])
        #expect(try StudyMark.parse("brand=3", stimuli: ["ad"]) == [StudyMark(stimulus: "ad", name: "brand", time: 3)])
        let csv = StudyMark.csv(marks)
        #expect(csv == "stimulus,mark,time\nad,brand,12.4\nad,brand,27\nother,offer,2\n")
        #expect(try StudyMark.read(csv: csv, file: "marks.csv") == marks)
    }

    /// Each wrong mark is refused saying why.
    @Test(arguments: [
        ("brand=3", "the study has 2 stimuli: say which"), ("ad:brand", "no '='"), ("ad:brand=soon", "not a number"),
        ("none:brand=1", "no stimulus none"), ("ad:brand=31", "outside the stimulus"), ("ad:brand=-1", "outside"),
        ("ad:the brand=1", "a mark's name"), ("ad:brand=1,1", "given twice"),
    ])
    func aWrongMark_isRefusedSayingWhy(text: String, words: String) {
        #expect {
            _ = try StudyMark.checked(try StudyMark.parse(text, stimuli: ["ad", "other"]), durations: Self.durations)
        } throws: { error in
            (error as? MienError)?.message.contains(words) == true
        }
    }

    @Test func aMarksFile_withoutItsHeaderOrWithABadLine_isRefusedNamingTheLine() {
        #expect(throws: MienError.self) { try StudyMark.read(csv: "ad,brand,1\n", file: "m.csv") }
        #expect {
            try StudyMark.read(csv: "stimulus,mark,time\nad,brand,1\nad,offer\n", file: "m.csv")
        } throws: { error in
            (error as? MienError)?.message.hasPrefix("line 3:") == true
        }
    }

    /// A chart of the stimulus draws each of its marks as a named line across the plot.
    @Test func aChart_drawsTheStimulusMarks() throws {
        let points = (0..<30).map {
            StudyCurvePoint(
                stimulus: "ad", group: "all", metric: "expressions.smile", time: Double($0), n: 8, mean: 40, low: 35,
                high: 45, episodeShare: nil)
        }
        let svg = StudyPage.chart(
            label: "expressions.smile", end: 30, range: 0...100, groups: ["all"], points: points, value: \.mean,
            band: true, moments: [], bin: 1, minimum: 5, template: try ChartSVG.parsed(),
            rules: [
                StudyMark(stimulus: "ad", name: "brand", time: 12.4), StudyMark(stimulus: "ad", name: "end", time: 30),
            ])
        #expect(svg.contains(">brand 12.4 s</text>") && svg.contains(">end 30 s</text>"))
        #expect(svg.contains(#"text-anchor="end""#), "a mark near the right edge is named left of its line")
        #expect(svg.components(separatedBy: ##"stroke="#6a3d9a""##).count == 3)
    }
}

/// The response features, checked by hand on a constructed series.
@Suite("Study response features")
struct StudyFeaturesTests {
    @Test func features_ofAConstructedSeries_areTheOnesComputedByHand() {
        // Bins of 1 s: 0, 10, 20, 30, (not measured), 50, 40, 30; a brand mark at 2 s (and again at 6 s).
        let smile: [Double?] = [0, 10, 20, 30, nil, 50, 40, 30]
        let series = ParticipantSeries(
            row: .init(line: 2, recording: "r.mp4", participant: "p1", stimulus: "ad", onset: 0), faceId: 0,
            frames: 80, faceFrames: 70, faceShare: 0.9, facesSeen: 1, framesWithSeveralFaces: 0, exclusion: nil,
            notes: [], binCount: 8,
            bins: ["expressions.smile": smile, "valence": [nil, nil, nil, nil, nil, nil, nil, 5]],
            episodeBins: [:], means: [:], episodeCounts: ["expressions.smile": 2])
        let marks = [
            StudyMark(stimulus: "ad", name: "brand", time: 6), StudyMark(stimulus: "ad", name: "brand", time: 2),
        ]
        let features = StudyFeatures.features(of: series, bin: 1, marks: marks)
        let smiles = Dictionary(
            uniqueKeysWithValues: features.filter { $0.metric == "expressions.smile" }.map { ($0.name, $0.value) })
        #expect(abs((smiles["mean"] ?? 0) - 180.0 / 7) < 1e-9)
        #expect(smiles["peak"] == 50 && smiles["peakTime"] == 5 && smiles["area"] == 180)
        #expect(smiles["lastQuarterSlope"] == -10, "bins 6 and 7: 40 then 30")
        #expect(smiles["episodes"] == 2)
        #expect(
            smiles["after.brand"] == 25 && smiles["change.brand"] == 20,
            "the first brand mark: 20, 30 after; 0, 10 before")
        // One measured bin: its mean, peak and area, no slope (one bin in the last quarter), no mark window.
        let valence = features.filter { $0.metric == "valence" }.map(\.name)
        #expect(valence == ["mean", "peak", "peakTime", "area"], "\(valence)")
        #expect(!features.contains { $0.metric == "emotions.joy" }, "a metric not measured has no feature")
    }
}

/// Which metrics study.html charts when the study names none: the rule, and the minimum effect.
@Suite("Study page: the charted metrics")
struct StudyChartRuleTests {
    static func moment(_ metric: String, _ kind: StudyMoment.Kind, value: Double, p: Double?) -> StudyMoment {
        StudyMoment(
            stimulus: "ad", kind: kind, metric: metric, group: "all", otherGroup: nil, start: 1, end: 3, time: 2,
            value: value, low: nil, high: nil, timeLow: nil, timeHigh: nil, p: p, mass: nil, method: nil,
            permutations: nil, episodeShare: nil)
    }

    /// A new user's report charted the kissing, flushed and wink emoji and called a -1.28-point change a response
    /// (p = 0.039): now the headline metrics come first, then only responses and differences of 5 points or more.
    @Test func theRule_chartsTheHeadlineMetrics_thenEffectsOfTheMinimumSize() throws {
        var study = Study(participants: [], settings: try StudySettings())
        study.participants = [
            ParticipantSeries(
                row: .init(line: 2, recording: "r.mp4", participant: "p1", stimulus: "ad", onset: 0), faceId: 0,
                frames: 10, faceFrames: 10, faceShare: 1, facesSeen: 1, framesWithSeveralFaces: 0, exclusion: nil,
                notes: [], binCount: 1, bins: [:], episodeBins: [:], means: [:], episodeCounts: [:])
        ]
        let metrics = [
            "expressions.smile", "emotions.joy", "valence", "emoji.kissing", "emoji.flushed", "emoji.wink",
            "expressions.browRaise", "emotions.surprise",
        ]
        study.curves = metrics.map {
            StudyCurvePoint(
                stimulus: "ad", group: "all", metric: $0, time: 0, n: 8, mean: 30, low: 25, high: 35, episodeShare: nil)
        }
        study.moments = [
            Self.moment("emoji.kissing", .response, value: -1.28, p: 0.039),
            Self.moment("emoji.flushed", .peak, value: 60, p: nil),
            Self.moment("emoji.wink", .difference, value: 4.9, p: 0.001),
            Self.moment("expressions.browRaise", .response, value: 12, p: 0.02),
            Self.moment("emotions.surprise", .difference, value: -8, p: 0.004),
            Self.moment("valence", .response, value: 1, p: 0.01),
        ]
        #expect(
            StudyPage.charted("ad", study: study) == [
                "expressions.smile", "emotions.joy", "valence", "emotions.surprise", "expressions.browRaise",
            ])
        study.settings.minimumEffect = 1
        #expect(StudyPage.charted("ad", study: study).contains("emoji.kissing"), "a smaller minimum: settable")
        let page = try StudyPage.render(study, generator: "test")
        #expect(page.contains("at least 1 points that passed its test"))
        study.settings.minimumEffect = 5
        let shown = try StudyPage.render(study, generator: "test")
        #expect(
            !shown.contains("valence responds") && shown.contains("at least 5 points"),
            "a 1-point response is not listed")
    }

    /// Groups carry their description on the page (`--group-label`), and the value axis its name and range.
    @Test func groupLabels_andAxisTitles_areOnThePage() throws {
        var settings = try StudySettings()
        settings.groupLabels = ["A": "Women 18-34"]
        var study = Study(participants: [], settings: settings)
        study.participants = (["A", "B"] as [String]).map { group in
            ParticipantSeries(
                row: .init(
                    line: 2, recording: "\(group).mp4", participant: "p\(group)", stimulus: "ad", onset: 0, group: group
                ),
                faceId: 0, frames: 10, faceFrames: 10, faceShare: 1, facesSeen: 1, framesWithSeveralFaces: 0,
                exclusion: nil, notes: [], binCount: 2, bins: [:], episodeBins: [:], means: [:], episodeCounts: [:])
        }
        study.curves = ["all", "A", "B"].flatMap { group in
            (0..<2).map {
                StudyCurvePoint(
                    stimulus: "ad", group: group, metric: "expressions.smile", time: Double($0), n: 1, mean: 20,
                    low: nil, high: nil, episodeShare: nil)
            }
        }
        let page = try StudyPage.render(study, generator: "test")
        #expect(
            page.contains("A (Women 18-34) 1") && page.contains("</i>A (Women 18-34)</span>"),
            "the sizes and the legend")
        #expect(page.contains(">Smile (0–100)</text>"), "the value axis's title")
    }

    /// A collected study's stimulus pictured along the time axis: six frames of the sample clip, each at its time.
    @Test func theStimulus_isPicturedAlongTheTimeAxis() async throws {
        let clip = SampleMedia.repositoryRoot.appendingPathComponent("Samples/astronaut-pan-zoom.mp4").path
        let pictures = try await StimulusStrip.pictures(path: clip, duration: 3)
        #expect(pictures.map(\.time) == [0.25, 0.75, 1.25, 1.75, 2.25, 2.75])
        #expect(pictures.allSatisfy { $0.jpeg.starts(with: [0xFF, 0xD8]) && $0.jpeg.count > 500 })
        let svg = StudyPage.pictures(pictures, end: 3)
        #expect(svg.hasPrefix("<svg class=\"pictures\"") && svg.components(separatedBy: "<image ").count == 7)
        #expect(StudyPage.pictures([], end: 3).isEmpty)
        await #expect(throws: MienError.self) {
            try await StimulusStrip.pictures(path: "/nonexistent.mp4", duration: 3)
        }
    }
}
