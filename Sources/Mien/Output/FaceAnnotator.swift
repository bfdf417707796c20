import RealModule

/// What `mien analyze --annotate` draws for each face of a result: the box coloured by valence (red
/// negative, grey neutral or unknown, green positive), the face ID, Affdex's 34 points, head-pose axes
/// from the box centre (red: the face's left-right axis, green: up, blue: where the nose points), the
/// three strongest emotions as bars under the box, and the dominant emoji's name.
package enum FaceAnnotator {
    static let negative = Colour(red: 230, green: 50, blue: 50)
    static let neutral = Colour(red: 200, green: 200, blue: 200)
    static let positive = Colour(red: 40, green: 210, blue: 90)
    static let points = Colour(red: 255, green: 220, blue: 0)

    /// The box colour for `valence` (−100...100, or nil).
    package static func colour(valence: Double?) -> Colour {
        guard let valence else { return neutral }
        return valence < 0
            ? Colour.mix(neutral, negative, -valence / 100) : Colour.mix(neutral, positive, valence / 100)
    }

    /// The shapes for every face of `result` (none for an unprocessed frame).
    package static func shapes(for result: DetectorResult) -> [Shape] {
        (result.faces ?? [:]).keys.sorted().flatMap { result.faces?[$0].map(shapes(for:)) ?? [] }
    }

    /// Gaze lines: yellow, apart from the pose axes' red, green and blue.
    static let gazeColour = Colour(red: 255, green: 220, blue: 0)

    /// The shapes for one face.
    package static func shapes(for face: FaceResult) -> [Shape] {
        let box = face.faceBounds
        let colour = colour(valence: face.valence)
        let unit = max(box.width, 40) / 100
        let line = max(1, Int(saturating: unit * 2, rounding: .towardZero))
        var shapes: [Shape] = [.rectangle(box, colour, thickness: line, filled: false)]
        shapes.append(
            .text(
                "id \(face.faceId)", at: Point(x: box.x, y: box.y - 4 * unit), scale: 0.4 * unit, colour,
                thickness: line))
        for p in face.facePoints ?? [] { shapes.append(.circle(center: p, radius: max(1, unit), points, filled: true)) }
        if let pose = face.orientation {
            let degrees = Double.pi / 180
            let (yaw, pitch, roll) = (pose.yaw * degrees, pose.pitch * degrees, pose.roll * degrees)
            let centre = Point(x: box.x + box.width / 2, y: box.y + box.height / 2)
            let length = box.width * 0.35
            func axis(_ dx: Double, _ dy: Double, _ c: Colour) -> Shape {
                .line(from: centre, to: Point(x: centre.x + dx * length, y: centre.y + dy * length), c, thickness: line)
            }
            shapes.append(axis(Double.cos(roll), Double.sin(roll), Colour(red: 255, green: 60, blue: 60)))
            shapes.append(axis(Double.sin(roll), -Double.cos(roll), Colour(red: 60, green: 255, blue: 60)))
            shapes.append(
                axis(Double.sin(yaw) * Double.cos(pitch), -Double.sin(pitch), Colour(red: 80, green: 140, blue: 255)))
        }
        // Gaze: a line from each iris the way the eye looks (its projection: yaw to the image's right for
        // the person's left, pitch up), as long as the box is wide at 90 degrees.
        for eye in [face.gaze?.left, face.gaze?.right].compactMap({ $0 }) {
            let (eyeYaw, eyePitch) = (eye.yaw * Double.pi / 180, eye.pitch * Double.pi / 180)
            let tip = Point(
                x: eye.origin.x + box.width * Double.sin(eyeYaw) * Double.cos(eyePitch),
                y: eye.origin.y - box.width * Double.sin(eyePitch))
            shapes.append(.line(from: eye.origin, to: tip, Self.gazeColour, thickness: line))
            shapes.append(.circle(center: eye.origin, radius: max(1, 2 * unit), Self.gazeColour, filled: true))
        }
        var y = box.y + box.height + 14 * unit
        let top = (face.emotions?.present ?? []).filter { $0.key != .neutral && $0.value >= 1 }.sorted {
            $0.value > $1.value
        }.prefix(3)
        for (emotion, value) in top {
            let width = box.width * value / 100
            shapes.append(
                .rectangle(
                    Rect(x: box.x, y: y - 9 * unit, width: max(1, width), height: 10 * unit), colour, thickness: 1,
                    filled: true))
            shapes.append(
                .text(
                    "\(emotion.rawValue) \(Int(saturating: value))", at: Point(x: box.x + 2, y: y), scale: 0.35 * unit,
                    .init(red: 255, green: 255, blue: 255), thickness: 1))
            y += 13 * unit
        }
        if let emoji = face.emoji?.dominantEmoji {
            shapes.append(
                .text(
                    ":\(emoji.rawValue):", at: Point(x: box.x, y: y + 4 * unit), scale: 0.45 * unit, colour,
                    thickness: line))
        }
        return shapes
    }
}
