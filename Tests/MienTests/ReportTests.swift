import Foundation
import Mien
import Testing

@Suite("HTML report building blocks", .timeLimit(.minutes(10)))
struct ReportTests {
    @Test func timeline_staysWithinCapacity_andKeepsTheShape() {
        var timeline = Timeline(capacity: 100)
        // 30 minutes at 30 frames/s of a ramp from 0 to 100.
        let n = 30 * 60 * 30
        for i in 0..<n { timeline.add(time: Double(i) / 30, value: Double(i) / Double(n - 1) * 100) }
        #expect(timeline.count == n)
        #expect(timeline.points.count <= 100 && timeline.points.count >= 50)
        let samples = timeline.samples
        #expect(samples.first.map { $0.value < 2 } == true && samples.last.map { $0.value > 98 } == true)
        // Every point sits on the ramp (bucket means of a straight line stay on it).
        for s in samples { #expect(abs(s.value - s.time * 30 / Double(n - 1) * 100) < 0.5) }
        #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.time > $1.time }, "in time order")
    }

    @Test func timeline_ignoresNonFiniteValues_andShowsThePartialBucket() {
        var timeline = Timeline(capacity: 4)
        timeline.add(time: 0, value: .nan)
        #expect(timeline.count == 0 && timeline.samples.isEmpty)
        for i in 0..<5 { timeline.add(time: Double(i), value: 10) }
        // 4 points filled and halved to 2 (buckets of 2), then one sample waits in the open bucket.
        #expect(timeline.points.count == 2 && timeline.bucketSize == 2)
        #expect(timeline.samples.count == 3 && timeline.samples.last?.time == 4)
    }

    @Test func lineChart_mapsTimeAndValueIntoThePlotArea_andBreaksAtGaps() throws {
        let samples =
            [0.0, 1, 2, 10, 11].map { Timeline.Sample(time: $0, value: $0 * 5) } + [
                Timeline.Sample(time: 30, value: 100)
            ]
        let chart = LineChart(
            title: "joy", series: [.init(name: "joy", colour: "#0a0", samples: samples)], timeRange: 0...30,
            valueRange: 0...100)
        let path = try #require(chart.paths.first)
        #expect(path.runs.count == 2, "0-2 s and 10-11 s are separate runs")
        #expect(path.dots.count == 1, "the lone sample at 30 s is a dot")
        let dot = try #require(path.dots.first)
        #expect(abs(dot.x - (LineChart.width - LineChart.right)) < 0.01 && abs(dot.y - LineChart.top) < 0.01)
        #expect(path.runs[0].hasPrefix("\(LineChart.left),\(LineChart.height - LineChart.bottom)"))
        #expect(chart.zeroLine == nil)
        #expect(chart.xTicks.map(\.label) == ["0 s", "5 s", "10 s", "15 s", "20 s", "25 s", "30 s"])
        let valence = LineChart(title: "v", series: [], timeRange: 0...1, valueRange: -100...100)
        #expect(
            valence.zeroLine.map { abs($0 - (LineChart.top + LineChart.height - LineChart.bottom) / 2) < 0.01 } == true)
    }

    @Test func timeLabels_readLikeAClock() {
        #expect(LineChart.timeLabel(0.5) == "0.5 s")
        #expect(LineChart.timeLabel(42) == "42 s")
        #expect(LineChart.timeLabel(65) == "1:05")
        #expect(LineChart.timeLabel(3723) == "1:02:03")
    }

    @Test func report_ofAnInputWithoutFaces_saysSo_andEscapesNames() throws {
        var input = InputReport(input: "<clip>.mp4")
        input.add(DetectorResult(frameIndex: 0, timestamp: 0, faces: [:]), frame: nil)
        input.problem = "interrupted"
        let html = try HTMLReport.render([input], generator: "test")
        #expect(html.contains("No face was found."))
        #expect(html.contains("Incomplete: interrupted"))
        #expect(html.contains("&lt;clip&gt;.mp4") && !html.contains("<clip>"))
    }
}
