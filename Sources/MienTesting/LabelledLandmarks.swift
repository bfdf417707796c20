public import Foundation
public import Mien

/// A face with 68 labelled points (iBUG 300-W order), for landmark-error measurement.
public struct LabelledLandmarks: Sendable {
    public var imagePath: String
    /// 68 points in image pixels.
    public var points: [Point]

    /// Distance between the outer eye corners (points 37 and 46, 1-based), the NME normaliser.
    public var interocularDistance: Double { points[36].distance(to: points[45]) }

    /// The mean of the labelled points, in image pixels (to find which detected face they belong to).
    public var center: Point {
        Point(
            x: points.map(\.x).reduce(0, +) / Double(points.count),
            y: points.map(\.y).reduce(0, +) / Double(points.count))
    }

    /// The normalised mean error of `predicted` (same order and count as `points`): the mean point
    /// distance over the outer-eye-corner distance (0.05 = 5 %).
    public func normalisedMeanError(of predicted: [Point]) -> Double {
        zip(predicted, points).reduce(0) { $0 + $1.0.distance(to: $1.1) } / Double(points.count) / interocularDistance
    }

    /// Reads a 300-W `.pts` file (`version`, `n_points`, `{`, one "x y" per line, `}`).
    public static func pts(_ url: URL) throws -> [Point] {
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let open = text.firstIndex(of: "{"), let close = text.lastIndex(of: "}"), open < close else {
            throw MienError(.corruptData, "not a .pts file", input: url.path)
        }
        let numbers = text[text.index(after: open)..<close].split(whereSeparator: \.isWhitespace).compactMap {
            Double($0)
        }
        guard numbers.count % 2 == 0 else {
            throw MienError(.corruptData, "odd number of coordinates", input: url.path)
        }
        return stride(from: 0, to: numbers.count, by: 2).map { Point(x: numbers[$0], y: numbers[$0 + 1]) }
    }

    /// The helen split's `faces.csv` (image, face_id, pts, box) with its `.pts` files.
    public static func helen(_ folder: URL) throws -> [LabelledLandmarks] {
        let rows = try CSVRecords.rows(ofCommented: folder.appendingPathComponent("faces.csv").path).dropFirst()
        return try rows.compactMap { cells in
            guard cells.count >= 3 else { return nil }
            let points = try pts(folder.appendingPathComponent(cells[2]))
            guard points.count == 68 else { return nil }
            return LabelledLandmarks(imagePath: folder.appendingPathComponent(cells[0]).path, points: points)
        }
    }
    /// The 68-point faces of a dlib imglab XML file (`<box …><part name='00' x= y=/>…</box>`).
    ///
    /// Boxes without exactly 68 parts are left out; image paths are resolved against the XML file's folder.
    public static func dlibXML(_ url: URL) throws -> [LabelledLandmarks] {
        let folder = url.deletingLastPathComponent()
        var faces: [LabelledLandmarks] = []
        var image: String?
        var parts: [Int: Point] = [:]
        func closeBox() {
            if let image, parts.count == 68, parts.keys.sorted() == Array(0..<68) {
                faces.append(LabelledLandmarks(imagePath: image, points: (0..<68).compactMap { parts[$0] }))
            }
            parts = [:]
        }
        for (tag, attributes) in try LabelledFaces.xmlTags(url) {
            if tag.hasPrefix("image "), let file = attributes["file"] {
                image = folder.appendingPathComponent(file).path
            } else if tag.hasPrefix("/box") {
                closeBox()
            } else if tag.hasPrefix("part "), let name = attributes["name"].flatMap({ Int($0) }),
                let x = attributes["x"].flatMap(Double.init), let y = attributes["y"].flatMap(Double.init)
            {
                parts[name] = Point(x: x, y: y)
            }
        }
        return faces
    }
}

/// A labelled head pose from Pointing'04.
public struct LabelledPose: Sendable {
    public var imagePath: String
    /// Degrees; > 0 = looking up.
    public var tilt: Double
    /// Degrees; > 0 = face turned toward the image's left (the person's right).
    public var pan: Double
    /// Hand-labelled face centre in pixels.
    public var faceCenter: Point
    /// Whether the person wears glasses in this series.
    public var glasses: Bool
    /// Who it is (1...15): folds that leave people out are made from this.
    public var person: Int

    /// Reads `labels.csv` (file, person, series, number, tilt, pan, cx, cy, w, h, glasses).
    public static func pointing04(_ folder: URL) throws -> [LabelledPose] {
        let rows = try CSVRecords.rows(ofCommented: folder.appendingPathComponent("labels.csv").path).dropFirst()
        return rows.compactMap { c in
            guard c.count >= 11, let tilt = Double(c[4]), let pan = Double(c[5]), let cx = Double(c[6]),
                let cy = Double(c[7]), let person = Int(c[1])
            else { return nil }
            return LabelledPose(
                imagePath: folder.appendingPathComponent(c[0]).path, tilt: tilt, pan: pan,
                faceCenter: Point(x: cx, y: cy), glasses: c[10] == "1", person: person)
        }
    }
}

extension LabelledPose {
    /// The face of `result` this label is about: the one nearest the labelled centre, nil when none is within its
    /// own width of it (faces in ID order, so a tie is decided the same way every run).
    public func face(in result: DetectorResult) -> FaceResult? {
        let faces = (result.faces ?? [:]).sorted { $0.key < $1.key }.map(\.value)
        guard
            let face = faces.min(by: {
                $0.faceBounds.center.distance(to: faceCenter) < $1.faceBounds.center.distance(to: faceCenter)
            }), face.faceBounds.center.distance(to: faceCenter) < face.faceBounds.width
        else { return nil }
        return face
    }
}
