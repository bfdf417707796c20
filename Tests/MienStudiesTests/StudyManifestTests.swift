import Foundation
import Testing

@testable import Mien
@testable import MienStudies

/// Reading what a study is made from: CSV manifests as people write them.
@Suite("Study manifest")
struct StudyManifestTests {
    @Test func csv_readsQuotesCommasAndLineBreaks() throws {
        let rows = try CSVRecords.parse("\u{FEFF}a,b\r\n\"x, \"\"y\"\"\",\"two\nlines\"\n,\n", source: "test")
        #expect(rows == [["a", "b"], ["x, \"y\"", "two\nlines"], ["", ""]])
        #expect(throws: MienError.self) { try CSVRecords.parse("\"open", source: "test") }
    }

    @Test func commentedFiles_dropCommentsAndBlankRows_andKeepQuotedCommas() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mien-csv-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "# a comment, with \"a quote\nfile,label\r\n\"a, b.jpg\",smile\n,\n# another\nc.jpg,\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(try CSVRecords.rows(ofCommented: path) == [["file", "label"], ["a, b.jpg", "smile"], ["c.jpg", ""]])
        #expect(throws: MienError.self) { try CSVRecords.rows(ofCommented: path + ".missing") }
    }
}
