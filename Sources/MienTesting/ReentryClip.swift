public import Mien

/// A clip assembled from two real people for re-identification tests: person A (frames of a talking-head
/// video), a gap, person B (a still), a gap, A again (later frames of the video), then A and B together
/// crossing the picture in opposite directions, one above the other.
///
/// Frames are made on demand on a grey background, at 25 frames per second.
public struct ReentryClip: Sendable {
    /// What a frame shows.
    public enum Scene: Sendable, Equatable {
        case personA, gap, personB, crossing
    }

    public static let width = 640
    public static let height = 480
    public static let framesPerSecond = 25.0
    /// The scenes in order, with their lengths in frames.
    public static let scenes: [(scene: Scene, frames: Int)] = [
        (.personA, 40), (.gap, 20), (.personB, 40), (.gap, 20), (.personA, 40), (.gap, 10), (.crossing, 60),
    ]
    /// Grey level of the background.
    static let background: UInt8 = 96

    /// Person A's video frames (all of them, decoded once) and person B's still.
    private let videoA: [Frame]
    private let stillB: Frame

    /// - Parameters:
    ///   - videoA: a video with one face in every frame (its frames are used in order, each scene of A
    ///     starting further in).
    ///   - stillB: a picture of another person.
    public init(videoA: String, stillB: String) throws {
        let source = try VideoFileSource(path: videoA)
        var frames: [Frame] = []
        while let frame = try source.nextFrame() { frames.append(frame) }
        guard !frames.isEmpty else { throw MienError(.invalidArgument, "no frames", input: videoA) }
        self.videoA = frames
        self.stillB = try ImageDecoder.decode(file: stillB)
    }

    /// Frames in the clip.
    public static var frameCount: Int { scenes.reduce(0) { $0 + $1.frames } }

    /// The scene of frame `index`, and the frame's position within its scene.
    public static func scene(at index: Int) -> (scene: Scene, offset: Int, length: Int) {
        var start = 0
        for (scene, frames) in scenes {
            if index < start + frames { return (scene, index - start, frames) }
            start += frames
        }
        return (.gap, 0, 1)
    }

    /// Frame `index` (0..<frameCount), with its index and timestamp.
    public func frame(at index: Int) throws -> Frame {
        let (scene, offset, length) = Self.scene(at: index)
        let t = length > 1 ? Double(offset) / Double(length - 1) : 0
        // A's video frame: after the first scene, A comes back 80 frames further into the video (talking,
        // not a copy of what was seen).
        let a = videoA[(offset + (index < Self.scenes[0].frames ? 0 : 80)) % videoA.count]
        var layers: [Layer] = []
        switch scene {
        case .gap: break
        case .personA: layers.append(Layer(a, face: Self.faceA, scale: 0.5, at: Point(x: 320, y: 240), side: 256))
        case .personB:
            layers.append(Layer(stillB, face: Self.faceB, scale: 1.3, at: Point(x: 300 + 40 * t, y: 240), side: 256))
        case .crossing:
            // A goes left to right along the top, B right to left along the bottom: they pass, never overlap.
            layers.append(Layer(a, face: Self.faceA, scale: 0.42, at: Point(x: 110 + 420 * t, y: 118), side: 216))
            layers.append(Layer(stillB, face: Self.faceB, scale: 1.1, at: Point(x: 530 - 420 * t, y: 362), side: 216))
        }
        var frame = try Self.composite(layers)
        frame.index = index
        frame.timestamp = Double(index) / Self.framesPerSecond
        return frame
    }

    /// The face centres of the two sources, in their own pixels (the video is 512 x 512; the astronaut's face
    /// is `SampleMedia.astronautFace`).
    static let faceA = Point(x: 256, y: 230)
    static let faceB = Point(x: 225, y: 130)

    /// A picture scaled and moved so that its point `face` lands on `at`, shown through a square window of
    /// `side` pixels around that point.
    private struct Layer {
        let picture: Frame
        let transform: AffineTransform
        let window: (x0: Int, y0: Int, x1: Int, y1: Int)

        init(_ picture: Frame, face: Point, scale: Double, at centre: Point, side: Double) {
            self.picture = picture
            transform = .scale(scale, thenTranslate: centre.x - face.x * scale, centre.y - face.y * scale)
            // The window, within both the placed picture and the canvas.
            let left = max(centre.x - side / 2, transform.tx, 0)
            let top = max(centre.y - side / 2, transform.ty, 0)
            let right = min(
                centre.x + side / 2, transform.tx + Double(picture.width) * scale, Double(ReentryClip.width))
            let bottom = min(
                centre.y + side / 2, transform.ty + Double(picture.height) * scale, Double(ReentryClip.height))
            window = (
                Int(left.rounded(.up)), Int(top.rounded(.up)), Int(right.rounded(.down)), Int(bottom.rounded(.down))
            )
        }
    }

    /// The layers drawn in order on the grey background, each through its window.
    private static func composite(_ layers: [Layer]) throws -> Frame {
        var pixels = [UInt8](repeating: background, count: width * height * Frame.channels)
        for layer in layers {
            let warped = try layer.picture.warped(by: layer.transform, width: width, height: height, border: background)
            let (x0, y0, x1, y1) = layer.window
            guard x1 > x0, y1 > y0 else { continue }
            for y in y0..<y1 {
                let row = (y * width + x0) * Frame.channels
                let end = (y * width + x1) * Frame.channels
                pixels.replaceSubrange(row..<end, with: warped.pixels[row..<end])
            }
        }
        return try Frame(width: width, height: height, pixels: pixels)
    }
}
