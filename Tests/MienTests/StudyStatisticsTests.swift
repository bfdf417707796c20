import Foundation
import Testing

@testable import Mien

/// The statistics and the file reading behind `mien study`, against published values and hand-made cases.
@Suite("Study statistics")
struct StudyStatisticsTests {
    @Test func studentT_matchesTheTable() {
        // Two-sided 95 % critical values (any statistics textbook's table).
        let table: [(Double, Double)] = [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042)]
        for (degrees, value) in table {
            #expect(abs(StudentT.critical95(degrees: degrees) - value) < 0.001, "\(degrees)")
        }
        #expect(abs(StudentT.critical95(degrees: 1e6) - 1.960) < 0.001)
        #expect(abs(StudentT.cdf(0, degrees: 4) - 0.5) < 1e-12)
    }

    @Test func meanInterval_andWelch() throws {
        let (mean, low, high) = StudyStatistics.meanInterval([1, 2, 3, 4])
        // sd = 1.291, se = 0.6455, t(3) = 3.182
        #expect(mean == 2.5 && abs((high ?? 0) - 4.5541) < 0.001 && abs((low ?? 0) - 0.4459) < 0.001)
        #expect(StudyStatistics.meanInterval([7]).low == nil)
        let difference = try #require(StudyStatistics.difference([10, 11, 12], [1, 2, 3]))
        // se = √(1/3 + 1/3), 4 degrees of freedom (Welch), t = 2.776
        #expect(difference.value == 9 && abs(difference.low - 6.7334) < 0.001 && abs(difference.high - 11.2666) < 0.001)
        #expect(try #require(StudyStatistics.difference([1, 2], [1, 2])).low < 0)
        #expect(StudyStatistics.difference([1], [1, 2]) == nil)
    }

    @Test func correlation_andPeaks() {
        #expect(abs((StudyStatistics.correlation([(1, 2), (2, 4), (3, 7)]) ?? 0) - 0.9934) < 0.001)
        #expect(StudyStatistics.correlation([(1, 5), (2, 5), (3, 5)]) == nil)
        let peaks = StudyStatistics.peaks([0, 50, 10, 30, 30, 5, nil, 40, 45])
        #expect(peaks.map(\.index) == [1, 3])
        // 50 stands above the deeper of the lowest points either side before a higher one: 0 left, 5 right.
        #expect(peaks.map(\.prominence) == [45, 20])
        // A rise to the end is no peak; nor is a plateau that goes on up.
        #expect(StudyStatistics.peaks([1, 2, 3, 3, 4]).isEmpty)
    }

    @Test func csv_readsQuotesCommasAndLineBreaks() throws {
        let rows = try CSVRecords.parse("\u{FEFF}a,b\r\n\"x, \"\"y\"\"\",\"two\nlines\"\n,\n", source: "test")
        #expect(rows == [["a", "b"], ["x, \"y\"", "two\nlines"], ["", ""]])
        #expect(throws: MienError.self) { try CSVRecords.parse("\"open", source: "test") }
    }
}
