public import Foundation
public import Mien

/// Face boxes labelled by people, read from `../shared/eval` annotation files.
public struct LabelledImage: Sendable {
    /// Image path.
    public var path: String
    /// Labelled face boxes in pixels (boxes marked `ignore` are left out).
    public var faces: [Rect]
}

/// Readers for the annotation formats of the evaluation data.
public enum LabelledFaces {
    /// Reads a dlib imglab XML file (`<image file=…><box top= left= width= height= [ignore='1']/>`).
    ///
    /// Image paths are resolved against the XML file's folder.
    public static func dlibXML(_ url: URL) throws -> [LabelledImage] {
        let folder = url.deletingLastPathComponent()
        var images: [LabelledImage] = []
        for (tag, attributes) in try xmlTags(url) {
            if tag.hasPrefix("image "), let file = attributes["file"] {
                images.append(LabelledImage(path: folder.appendingPathComponent(file).path, faces: []))
            } else if tag.hasPrefix("box "), attributes["ignore"] != "1", !images.isEmpty,
                let top = attributes["top"].flatMap(Double.init), let left = attributes["left"].flatMap(Double.init),
                let width = attributes["width"].flatMap(Double.init),
                let height = attributes["height"].flatMap(Double.init)
            {
                images[images.count - 1].faces.append(Rect(x: left, y: top, width: width, height: height))
            }
        }
        return images
    }

    /// The tags of a dlib imglab XML file in order, each with its `name='value'` attributes (a closing
    /// tag such as `/box>` has none).
    static func xmlTags(_ url: URL) throws -> [(tag: String, attributes: [String: String])] {
        try String(contentsOf: url, encoding: .isoLatin1).components(separatedBy: "<").dropFirst().map {
            ($0, attributes(of: $0))
        }
    }

    /// `name='value'` pairs of one XML tag.
    private static func attributes(of tag: String) -> [String: String] {
        var result: [String: String] = [:]
        let pattern = /([A-Za-z_]+)='([^']*)'/
        for match in tag.prefix(while: { $0 != ">" }).matches(of: pattern) {
            result[String(match.1)] = String(match.2)
        }
        return result
    }
}

/// How well detections match labelled faces.
public struct DetectionMatch: Sendable {
    public var labelled = 0
    /// Labelled faces with a detection whose centre lies inside the labelled box.
    public var found = 0
    /// Detections whose centre lies in no labelled box.
    public var spurious = 0
    /// IoU of each found face's best detection with its label.
    public var overlaps: [Double] = []

    public init() {}

    public var recall: Double { labelled > 0 ? Double(found) / Double(labelled) : 0 }
    public var meanIoU: Double { overlaps.isEmpty ? 0 : overlaps.reduce(0, +) / Double(overlaps.count) }

    /// Adds one image: each label is found when some detection's centre falls in it.
    public mutating func add(labels: [Rect], detections: [FaceDetection]) {
        labelled += labels.count
        for label in labels {
            let hits = detections.filter { label.contains($0.bounds.center) }
            if let best = hits.map({ $0.bounds.iou(label) }).max() {
                found += 1
                overlaps.append(best)
            }
        }
        spurious += detections.filter { d in !labels.contains { $0.contains(d.bounds.center) } }.count
    }
}
