import RealModule

/// A rotated square around a face, in frame pixels: where the mesh model looks.
///
/// MediaPipe feeds its landmark model a crop that is upright with respect to the face (eyes level),
/// 1.5 times the face's size, so that rolled heads look like upright ones to the model. The rotation
/// comes from the detector's eye keypoints on the first frame and from the previous mesh's outer eye
/// corners afterwards.
public struct FaceRegion: Sendable, Equatable, Codable {
    /// Centre in frame pixels.
    public var center: Point
    /// Side of the square in frame pixels.
    public var size: Double
    /// Angle of the face's eye line from horizontal, radians, positive clockwise on screen (y down):
    /// the person's left eye (on the image's right) lower than their right eye.
    public var rotation: Double

    /// Crop side / face size, MediaPipe's `scale_x: 1.5, scale_y: 1.5, square_long: true`.
    public static let expansion = 1.5

    public init(center: Point, size: Double, rotation: Double) {
        self.center = center
        self.size = size
        self.rotation = rotation
    }

    /// The region for a fresh detection: centred on its box, rotated by its eye keypoints.
    public init(detection: FaceDetection) {
        let right = detection[.rightEye]
        let left = detection[.leftEye]
        self.init(
            center: detection.bounds.center,
            size: max(detection.bounds.width, detection.bounds.height) * Self.expansion,
            rotation: Double.atan2(y: left.y - right.y, x: left.x - right.x))
    }

    /// Side of the whole-picture region (`init(wholePicture:)`) as a multiple of the picture's longer
    /// side.
    ///
    /// A face crop is framed about as tightly as a detector box, and the mesh wants a region 1.5 times
    /// a detector box; a little less keeps the mesh's input from being mostly margin. Measured on the
    /// 777 pictures of fer2013's PublicTest half where no face is detected: the mesh finds a face in
    /// 538 at 1.0, 620 at 1.25, 542 at 1.5.
    public static let wholePictureScale = 1.25

    /// The region for a picture that is itself a face crop (the face fills it, as in FER-2013): centred,
    /// upright, `wholePictureScale` times the picture's longer side.
    public init(wholePicture frame: Frame) {
        self.init(
            center: Point(x: Double(frame.width) / 2, y: Double(frame.height) / 2),
            size: Double(max(frame.width, frame.height)) * Self.wholePictureScale, rotation: 0)
    }

    /// The region for tracking from a mesh: rotated by the outer eye corners, sized from the extent of
    /// all points measured along and across that rotation (tighter than an axis-aligned box on a
    /// rolled head).
    public init(mesh points: [Point3D]) {
        let right = points[FaceLandmark.rightEyeOuterCorner].xy
        let left = points[FaceLandmark.leftEyeOuterCorner].xy
        let angle = Double.atan2(y: left.y - right.y, x: left.x - right.x)
        let c = Double.cos(angle)
        let s = Double.sin(angle)
        var minU = Double.infinity
        var maxU = -Double.infinity
        var minV = Double.infinity
        var maxV = -Double.infinity
        for p in points.prefix(FaceLandmark.meshPointCount) {
            let u = c * p.x + s * p.y
            let v = -s * p.x + c * p.y
            minU = min(minU, u)
            maxU = max(maxU, u)
            minV = min(minV, v)
            maxV = max(maxV, v)
        }
        let cu = (minU + maxU) / 2
        let cv = (minV + maxV) / 2
        self.init(
            center: Point(x: c * cu - s * cv, y: s * cu + c * cv),
            size: max(maxU - minU, maxV - minV) * Self.expansion, rotation: angle)
    }

    /// Maps frame pixels into a `side` x `side` crop that shows this region upright.
    package func cropFromFrame(side: Int) -> AffineTransform {
        let k = Double(side) / size
        let c = Double.cos(rotation)
        let s = Double.sin(rotation)
        // Rotate by -rotation about the centre, scale, and move the centre to the crop's middle.
        let a = c * k
        let b = s * k
        let cc = -s * k
        let d = c * k
        let half = Double(side) / 2
        return AffineTransform(
            a: a, b: b, tx: half - (a * center.x + b * center.y),
            c: cc, d: d, ty: half - (cc * center.x + d * center.y))
    }

    /// The axis-aligned box around the rotated square, in frame pixels.
    public var boundingBox: Rect {
        let extent = size / 2 * (abs(Double.cos(rotation)) + abs(Double.sin(rotation)))
        return Rect(x: center.x - extent, y: center.y - extent, width: 2 * extent, height: 2 * extent)
    }
}
