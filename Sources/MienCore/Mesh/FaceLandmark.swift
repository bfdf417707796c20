/// Indices into MediaPipe's 478-point face mesh that Mien uses by name.
///
/// Left and right are the person's. Indices 0...467 are the face mesh, 468...477 the irises
/// (468 right iris centre, 469...472 its contour; 473 left iris centre, 474...477 its contour).
public enum FaceLandmark {
    /// Points in the mesh including irises.
    public static let count = 478
    /// Points of the face surface (without the irises); the canonical face model has these.
    public static let meshPointCount = 468

    public static let rightEyeOuterCorner = 33
    public static let rightEyeInnerCorner = 133
    public static let leftEyeOuterCorner = 263
    public static let leftEyeInnerCorner = 362
    public static let noseTip = 1
    public static let chin = 152
    public static let upperLipTop = 0
    public static let lowerLipBottom = 17
    public static let mouthRightCorner = 61
    public static let mouthLeftCorner = 291
    public static let rightIrisCenter = 468
    public static let leftIrisCenter = 473

    /// The 68 points of the iBUG 300-W convention (jaw 0-16, brows 17-26, nose 27-35, eyes 36-47,
    /// mouth 48-67; 0-based, left/right as seen in the image for the jaw and brows, as 300-W defines
    /// them) expressed as mesh indices, the correspondence commonly used with MediaPipe's mesh.
    ///
    /// Fixed vertices cannot follow 300-W's contour points (the visible jaw outline, evenly spaced
    /// brows); `Ibug68Points` starts from this table and resamples those contours.
    public static let ibug68: [Int] = [
        162, 234, 93, 58, 172, 136, 149, 148, 152, 377, 378, 365, 397, 288, 323, 454, 389,  // jaw
        70, 63, 105, 66, 107, 336, 296, 334, 293, 300,  // brows
        168, 197, 5, 4, 75, 97, 2, 326, 305,  // nose
        33, 160, 158, 133, 153, 144, 362, 385, 387, 263, 373, 380,  // eyes
        61, 39, 37, 0, 267, 269, 291, 405, 314, 17, 84, 181,  // outer lip
        78, 82, 13, 312, 308, 317, 14, 87,  // inner lip
    ]
}
