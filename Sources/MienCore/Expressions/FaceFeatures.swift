/// Geometric measurements of one face, read off its `FrontalFace`, so they do not depend on head
/// pose, distance or image size.
///
/// Lengths are in interocular distances (outer eye corners); heights are measured along the face's own
/// up axis (positive = up). Left and right are the person's. These are the second evidence behind
/// the expressions where MediaPipe's blendshapes stay near 0 on subtle faces.
package struct FaceFeatures: Sendable, Equatable, Codable {
    /// One value per side of the face.
    package struct Sides: Sendable, Equatable, Codable {
        package var left: Double
        package var right: Double

        package init(left: Double, right: Double) {
            self.left = left
            self.right = right
        }

        /// The mean of both sides.
        package var mean: Double { (left + right) / 2 }
    }

    /// Eye aspect ratio: lid-to-lid height over corner-to-corner width (about 0.3 open, under 0.1 shut).
    package var eyeOpening: Sides
    /// Height of the outer and middle brow above the eye's centre.
    package var browHeight: Sides
    /// Height of the inner brow end above the inner eye corner.
    package var innerBrowHeight: Sides
    /// Horizontal distance between the inner brow ends (drawn together by a frown).
    package var browGap: Double
    /// Gap between the inner lips.
    package var lipGap: Double
    /// Distance between the mouth corners.
    package var mouthWidth: Double
    /// Height of each mouth corner above the midpoint between the inner lips (positive = corners up).
    package var cornerLift: Sides
    /// Distance from the base of the nose down to the top of the upper lip.
    package var noseToLip: Double
    /// Visible red of both lips (outer to inner lip line, upper plus lower) at the centre.
    package var lipThickness: Double
    /// Distance from the nose tip down to the chin.
    package var noseToChin: Double
    /// Height of the lower lid's centre above the line between the eye corners (pushed up by a cheek
    /// raise or a lid tightener).
    package var lowerLidHeight: Sides
    /// Height of the upper cheek below the eye's centre (negative; closer to 0 when the cheek rises).
    package var cheekHeight: Sides
    /// Height of the nose wing below the inner eye corner (negative; closer to 0 when the nose wrinkles).
    package var noseWingHeight: Sides
    /// Where the irises sit in their eyes on average, in the frontalised face: x toward the person's left,
    /// y up, in half eye widths (0 = centred, ±1 = at a corner).
    ///
    /// A raw feature only (`MienDev features`): gaze and attention read the irises in the picture instead
    /// (`GazeEstimator` says why).
    package var gaze: Point?

    /// Mesh indices of the points each measure reads (MediaPipe face mesh).
    enum Index {
        static let rightEye = (outer: 33, inner: 133, upper: [160, 158], lower: [144, 153])
        static let leftEye = (outer: 263, inner: 362, upper: [385, 387], lower: [380, 373])
        static let rightBrow = [70, 63, 105]
        static let leftBrow = [300, 293, 334]
        static let rightInnerBrow = 107
        static let leftInnerBrow = 336
        static let rightBrowInnerLower = 55
        static let leftBrowInnerLower = 285
        static let innerUpperLip = 13
        static let innerLowerLip = 14
        static let outerUpperLip = 0
        static let outerLowerLip = 17
        static let noseBase = 2
        static let noseTip = 1
        static let chin = 152
        static let rightLowerLid = 145
        static let leftLowerLid = 374
        static let rightCheek = 50
        static let leftCheek = 280
        static let rightNoseWing = 129
        static let leftNoseWing = 358
        static let rightIris = 468
        static let leftIris = 473
    }

    /// Measures `face`; gaze only when the mesh has its 10 iris points.
    package init(face: FrontalFace) {
        let p = face.points
        func height(_ a: Int, above b: Int) -> Double { p[a].y - p[b].y }
        func meanY(_ indices: [Int]) -> Double { indices.map { p[$0].y }.reduce(0, +) / Double(indices.count) }
        func opening(_ eye: (outer: Int, inner: Int, upper: [Int], lower: [Int])) -> Double {
            let width = face.distance(eye.outer, eye.inner)
            let heights = zip(eye.upper, eye.lower).map { face.distance($0.0, $0.1) }
            return width > 0 ? heights.reduce(0, +) / Double(heights.count) / width : 0
        }
        func eyeCentreY(_ eye: (outer: Int, inner: Int, upper: [Int], lower: [Int])) -> Double {
            (p[eye.outer].y + p[eye.inner].y) / 2
        }
        eyeOpening = Sides(left: opening(Index.leftEye), right: opening(Index.rightEye))
        browHeight = Sides(
            left: meanY(Index.leftBrow) - eyeCentreY(Index.leftEye),
            right: meanY(Index.rightBrow) - eyeCentreY(Index.rightEye))
        innerBrowHeight = Sides(
            left: height(Index.leftInnerBrow, above: Index.leftEye.inner),
            right: height(Index.rightInnerBrow, above: Index.rightEye.inner))
        browGap = abs(p[Index.leftBrowInnerLower].x - p[Index.rightBrowInnerLower].x)
        lipGap = max(0, height(Index.innerUpperLip, above: Index.innerLowerLip))
        mouthWidth = face.distance(FaceLandmark.mouthLeftCorner, FaceLandmark.mouthRightCorner)
        let mouthMiddle = (p[Index.innerUpperLip].y + p[Index.innerLowerLip].y) / 2
        cornerLift = Sides(
            left: p[FaceLandmark.mouthLeftCorner].y - mouthMiddle,
            right: p[FaceLandmark.mouthRightCorner].y - mouthMiddle)
        noseToLip = height(Index.noseBase, above: Index.outerUpperLip)
        lipThickness =
            height(Index.outerUpperLip, above: Index.innerUpperLip)
            + height(Index.innerLowerLip, above: Index.outerLowerLip)
        noseToChin = height(Index.noseTip, above: Index.chin)
        lowerLidHeight = Sides(
            left: p[Index.leftLowerLid].y - eyeCentreY(Index.leftEye),
            right: p[Index.rightLowerLid].y - eyeCentreY(Index.rightEye))
        cheekHeight = Sides(
            left: p[Index.leftCheek].y - eyeCentreY(Index.leftEye),
            right: p[Index.rightCheek].y - eyeCentreY(Index.rightEye))
        noseWingHeight = Sides(
            left: height(Index.leftNoseWing, above: Index.leftEye.inner),
            right: height(Index.rightNoseWing, above: Index.rightEye.inner))
        if p.count > Index.leftIris {
            func offset(iris: Int, _ eye: (outer: Int, inner: Int, upper: [Int], lower: [Int])) -> Point {
                let halfWidth = max(face.distance(eye.outer, eye.inner) / 2, 1e-9)
                let centre = Point(x: (p[eye.outer].x + p[eye.inner].x) / 2, y: eyeCentreY(eye))
                return Point(x: (p[iris].x - centre.x) / halfWidth, y: (p[iris].y - centre.y) / halfWidth)
            }
            let left = offset(iris: Index.leftIris, Index.leftEye)
            let right = offset(iris: Index.rightIris, Index.rightEye)
            gaze = Point(x: (left.x + right.x) / 2, y: (left.y + right.y) / 2)
        } else {
            gaze = nil
        }
    }
}
