/// How much tongue shows between the lips, 0...100, from the colour of the pixels inside the inner lip
/// line (MediaPipe's blendshape model has no `tongueOut` output).
///
/// Inside an open mouth the cavity is dark and the teeth are bright but colourless; the tongue is
/// the one clearly red, moderately bright surface. The score is the share of sampled pixels inside the
/// inner lip contour that look like tongue, through a response curve, and only counts when the mouth is
/// open by at least `minimumOpening` pixels (a closed mouth's contour holds only lip). It needs colour:
/// grayscale faces give nil. Limits: not validated on labelled data (the evaluation data has no tongue
/// labels); red lipstick inside an open mouth, or strong red light, can read as tongue.
package enum TongueEvidence {
    /// The inner lip contour, mesh indices in order around the mouth.
    package static let innerLipContour = [
        78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308, 324, 318, 402, 317, 14, 87, 178, 88, 95,
    ]
    /// Samples per side of the mouth's box.
    static let samplesPerSide = 24
    /// Pixels between the inner lips below which the mouth counts as closed.
    static let minimumOpening = 3.0
    /// Share of tongue-coloured samples to activation.
    static let response = ResponseCurve(neutral: 0.2, full: 0.6)

    /// The tongue score of the face with `mesh` in `frame`, or nil when the face has no colour.
    package static func score(mesh: FaceMesh, in frame: Frame, hasColour: Bool) -> Double? {
        guard hasColour, mesh.points.count >= FaceLandmark.meshPointCount else { return nil }
        let polygon = innerLipContour.map { mesh.points[$0].xy }
        let opening = mesh.points[14].xy.distance(to: mesh.points[13].xy)
        guard opening >= minimumOpening else { return 0 }
        let minX = max(0, polygon.map(\.x).min() ?? 0)
        let maxX = min(Double(frame.width - 1), polygon.map(\.x).max() ?? 0)
        let minY = max(0, polygon.map(\.y).min() ?? 0)
        let maxY = min(Double(frame.height - 1), polygon.map(\.y).max() ?? 0)
        guard maxX > minX, maxY > minY else { return 0 }
        var inside = 0
        var tongue = 0
        for j in 0..<samplesPerSide {
            let y = minY + (Double(j) + 0.5) * (maxY - minY) / Double(samplesPerSide)
            for i in 0..<samplesPerSide {
                let x = minX + (Double(i) + 0.5) * (maxX - minX) / Double(samplesPerSide)
                guard contains(polygon, Point(x: x, y: y)) else { continue }
                inside += 1
                let offset = Int(y) * frame.stride + Int(x) * Frame.channels
                if isTongueColoured(b: frame.pixels[offset], g: frame.pixels[offset + 1], r: frame.pixels[offset + 2]) {
                    tongue += 1
                }
            }
        }
        guard inside > 0 else { return 0 }
        return (100 * response(Double(tongue) / Double(inside))).rounded(toPlaces: 2)
    }

    /// Strongly red (a tongue's red is about twice its green), neither the dark cavity nor a blown
    /// highlight.
    ///
    /// Teeth (red/green about 1.2 under warm light) and the pink edge of gums and lips (about
    /// 1.5, measured on the bundled astronaut's open smile) stay below.
    static func isTongueColoured(b: UInt8, g: UInt8, r: UInt8) -> Bool {
        let (r, g, b) = (Double(r), Double(g), Double(b))
        return r >= 90 && r <= 250 && r > 1.65 * g && r > 1.35 * b
    }

    /// Even-odd rule.
    static func contains(_ polygon: [Point], _ p: Point) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i]
            let b = polygon[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }
}
