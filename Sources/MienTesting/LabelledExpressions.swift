public import Foundation
import Mien

/// A face image with an expression (or emotion) label.
public struct LabelledExpression: Sendable {
    /// Absolute path of the image.
    public var imagePath: String
    /// The label as the data set spells it after normalising (`happiness`, `neutral`, `surprise`,
    /// `sleepy`, `wink`, `anger`, ...).
    public var label: String
    /// The person, where the data set names one.
    public var subject: String

    /// Reads a CSV with a header; `file`, `label` and `subject` name its columns (the file column is
    /// relative to `folder`).
    ///
    /// Rows with an empty label are skipped.
    public static func csv(_ folder: URL, table: String, file: String, label: String, subject: String? = nil) throws
        -> [LabelledExpression]
    {
        let lines = try CSVRecords.rows(ofCommented: folder.appendingPathComponent(table).path)
        guard let header = lines.first,
            let fileColumn = header.firstIndex(of: file), let labelColumn = header.firstIndex(of: label)
        else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: table]) }
        let subjectColumn = subject.flatMap { header.firstIndex(of: $0) }
        return lines.dropFirst().compactMap { row in
            guard row.count > max(fileColumn, labelColumn), !row[labelColumn].isEmpty else { return nil }
            return LabelledExpression(
                imagePath: folder.appendingPathComponent(String(row[fileColumn])).path, label: String(row[labelColumn]),
                subject: subjectColumn.map { String(row[$0]) } ?? "")
        }
    }

    /// yalefaces' six labelled expressions (happiness, sadness, surprise, neutral, sleepy, wink).
    public static func yalefaces(_ root: URL) throws -> [LabelledExpression] {
        try csv(
            root.appendingPathComponent("yalefaces"), table: "labels.csv", file: "file_png", label: "expression",
            subject: "subject")
    }

    /// FER-2013's PublicTest half (48 x 48 grey face crops, seven emotions).
    public static func fer2013(_ root: URL) throws -> [LabelledExpression] {
        try csv(root.appendingPathComponent("fer2013_test"), table: "labels.csv", file: "file", label: "emotion")
    }

    /// The JAFFE images in muxspace_facial_expressions (seven emotions).
    public static func jaffe(_ root: URL) throws -> [LabelledExpression] {
        try csv(
            root.appendingPathComponent("muxspace_facial_expressions"), table: "jaffe_test_labels.csv", file: "file",
            label: "emotion", subject: "subject")
    }

    /// muxspace's crowd-labelled crops (eight emotions), keeping only images present on disk (the dev
    /// split ships part of the listed files); the subject is the person the file is named after.
    public static func muxspace(_ root: URL) throws -> [LabelledExpression] {
        try csv(
            root.appendingPathComponent("muxspace_facial_expressions"), table: "labels.csv", file: "file",
            label: "emotion"
        )
        .filter { FileManager.default.fileExists(atPath: $0.imagePath) }
        .map { image in
            var image = image
            image.subject = person(namingFile: image.imagePath)
            return image
        }
    }

    /// The person an LFW-style file is named after: `Colin_Powell_0012.jpg` → `Colin_Powell` (muxspace's
    /// crops are named so, its movie crops too).
    public static func person(namingFile path: String) -> String {
        URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.split(separator: "_").dropLast()
            .joined(separator: "_")
    }

    /// Which eye each yalefaces subject winks with, labelled by eye from the images (the data set does
    /// not say): subjects 1–8 all close their left eye (the eye on the image's right).
    public static let yalefacesWinkSide: [String: String] = [
        "subject01": "left", "subject02": "left", "subject03": "left", "subject04": "left",
        "subject05": "left", "subject06": "left", "subject07": "left", "subject08": "left",
    ]
}
