import Foundation
import Testing

@testable import Mien

/// Reading what a study is made from: CSV manifests as people write them.
@Suite("Study manifest")
struct StudyManifestTests {
    @Test func csv_readsQuotesCommasAndLineBreaks() throws {
        let rows = try CSVRecords.parse("\u{FEFF}a,b\r\n\"x, \"\"y\"\"\",\"two\nlines\"\n,\n", source: "test")
        #expect(rows == [["a", "b"], ["x, \"y\"", "two\nlines"], ["", ""]])
        #expect(throws: MienError.self) { try CSVRecords.parse("\"open", source: "test") }
    }
}
