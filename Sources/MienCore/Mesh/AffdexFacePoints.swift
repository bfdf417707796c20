/// Affdex's 34 facial points, taken from the 478-point mesh, so code written against Affdex's
/// `facePoints` indices keeps working.
///
/// The numbering and names follow Affdex SDK 3.x's facial-landmark diagram (0 right top jaw ... 33
/// lower corner of the left eye; right and left are the person's). Each is mapped to the mesh point
/// at the same anatomical spot; Affdex's points came from a different landmarker, so expect a few
/// pixels of systematic offset on the jaw, where "the same spot" is least well defined.
public enum AffdexFacePoints {
    /// `(Affdex index, name, mesh index)` in Affdex order.
    public static let table: [(index: Int, name: String, meshIndex: Int)] = [
        (0, "rightTopJaw", 127), (1, "rightJawAngle", 172), (2, "tipOfChin", 152), (3, "leftJawAngle", 397),
        (4, "leftTopJaw", 356), (5, "outerRightBrowCorner", 70), (6, "rightBrowCenter", 105),
        (7, "innerRightBrowCorner", 107), (8, "innerLeftBrowCorner", 336), (9, "leftBrowCenter", 334),
        (10, "outerLeftBrowCorner", 300), (11, "noseRoot", 168), (12, "noseTip", 1),
        (13, "noseLowerRightBoundary", 98), (14, "noseBottomBoundary", 2), (15, "noseLowerLeftBoundary", 327),
        (16, "outerRightEye", 33), (17, "innerRightEye", 133), (18, "innerLeftEye", 362), (19, "outerLeftEye", 263),
        (20, "rightLipCorner", 61), (21, "rightApexUpperLip", 37), (22, "upperLipCenter", 0),
        (23, "leftApexUpperLip", 267), (24, "leftLipCorner", 291), (25, "leftEdgeLowerLip", 314),
        (26, "lowerLipCenter", 17), (27, "rightEdgeLowerLip", 84), (28, "bottomUpperLip", 13),
        (29, "topLowerLip", 14), (30, "upperCornerRightEye", 159), (31, "lowerCornerRightEye", 145),
        (32, "upperCornerLeftEye", 386), (33, "lowerCornerLeftEye", 374),
    ]

    /// The 34 points of `mesh`, in Affdex order, frame pixels.
    public static func points(of mesh: FaceMesh) -> [Point] {
        table.map { mesh.points[$0.meshIndex].xy }
    }
}
