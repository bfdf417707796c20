/// How well a face can be measured in its frame (Affdex 3.2's face quality, extended).
public struct FaceQuality: Sendable, Equatable, Codable {
    /// Mean brightness of the face's box, 0 (black) to 100 (white), from BT.601 luma.
    public var brightness: Double
    /// The longer side of the face's box, in frame pixels.
    public var size: Double
    /// Share of the mesh's 468 surface points that lie inside the frame, 0...1.
    public var insideFrame: Double
    /// Whether the face's pixels carry colour (false for grayscale pictures stored as colour).
    public var hasColour: Bool

    public init(brightness: Double, size: Double, insideFrame: Double, hasColour: Bool) {
        self.brightness = brightness
        self.size = size
        self.insideFrame = insideFrame
        self.hasColour = hasColour
    }

    /// Largest grid of samples read from the face's box: enough for a stable mean at any face size.
    static let samplesPerSide = 32

    /// Measures the face whose mesh is `mesh` in `frame`.
    public init(mesh: FaceMesh, in frame: Frame) {
        let box = mesh.bounds
        let clipped = box.intersection(frame.bounds) ?? Rect(x: 0, y: 0, width: 0, height: 0)
        var luma = 0.0
        var count = 0
        var colourful = 0
        if clipped.width >= 1, clipped.height >= 1 {
            let steps = Self.samplesPerSide
            for j in 0..<steps {
                let y = min(frame.height - 1, Int(clipped.y + (Double(j) + 0.5) * clipped.height / Double(steps)))
                for i in 0..<steps {
                    let x = min(frame.width - 1, Int(clipped.x + (Double(i) + 0.5) * clipped.width / Double(steps)))
                    let offset = y * frame.stride + x * Frame.channels
                    let b = Int(frame.pixels[offset])
                    let g = Int(frame.pixels[offset + 1])
                    let r = Int(frame.pixels[offset + 2])
                    luma += frame.luma(x: x, y: y)
                    if max(r, g, b) - min(r, g, b) > Self.colourDifference { colourful += 1 }
                    count += 1
                }
            }
        }
        let surface = mesh.points.prefix(FaceLandmark.meshPointCount)
        let inside = surface.filter { frame.bounds.contains($0.xy) }.count
        self.init(
            brightness: count > 0 ? (luma / Double(count) / 255 * 100).rounded(toPlaces: 2) : 0,
            size: max(box.width, box.height).rounded(toPlaces: 2),
            insideFrame: surface.isEmpty ? 0 : Double(inside) / Double(surface.count),
            hasColour: count > 0 && Double(colourful) / Double(count) > Self.colourShare)
    }

    /// Channel spread (0...255) above which a pixel counts as coloured, beyond JPEG chroma noise.
    static let colourDifference = 12
    /// Share of coloured samples above which the face counts as a colour picture.
    static let colourShare = 0.2
}
