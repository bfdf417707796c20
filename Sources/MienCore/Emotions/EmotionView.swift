/// One framing of a face for the emotion CNN: which region of the frame fills its square input.
///
/// Every view is also read mirrored (the CNN's training flipped faces at random).
///
/// fer's CNN was trained on FER-2013's 48 x 48 pictures (a face filling the picture, from the forehead
/// to the chin) with Keras' augmentation: random zooms of ±10 %, shifts, rotations and flips, the
/// uncovered margin filled by repeating the edge pixels. Its answers are steadiest averaged over views
/// like the ones it was trained on.
package enum EmotionView: Sendable, Hashable {
    /// An upright square around the face's mesh, `scale` times the mesh box's longer side
    /// (`EmotionCrop`): the framing for a face anywhere in a larger picture.
    case meshCrop(scale: Double)
    /// The whole picture, zoomed about its centre so the view covers `zoom` times the picture's width
    /// and height (below 1 zooms in; above 1 shows a margin of repeated edge pixels): fer's own framing
    /// when the picture is a face crop.
    case wholePicture(zoom: Double)

    /// Share of the picture (0...1, by area) the face's mesh box must cover for the picture to count as
    /// a face crop (as in FER-2013, LFW or JAFFE).
    package static let faceCropShare = 0.3

    /// The views of a face anywhere in a picture: three crop sizes.
    ///
    /// Measured with `MienDev emotion-features` (accuracy of the CNN alone on fer2013 / muxspace /
    /// JAFFE): 1.0 alone 64.1 / 45.8 / 50.0 %; 0.9 + 1.0 + 1.1 averaged 64.8 / 47.2 / 52.9 %; 1.25 and
    /// wider lose (60 % and less on fer2013).
    package static let faceInPicture: [EmotionView] = [
        .meshCrop(scale: 1.0), .meshCrop(scale: 0.9), .meshCrop(scale: 1.1),
    ]

    /// The views of a face that is the picture: the mesh crop and the whole picture at three zooms.
    ///
    /// Measured on fer2013's PublicTest half (the CNN alone, each view averaged with its mirror): the
    /// whole picture 66.06 %, at zooms 0.9 / 1.0 / 1.1 67.26 % (with a black margin instead of repeated
    /// edges for the zoom-out: 66.62 %); 30 views adding ±5 % shifts and ±8° turns 67.37 %, no better
    /// for five times the cost. On the faces Mien finds there, the whole-picture zooms score 67.8 %,
    /// with one mesh crop (a quarter of the weight) 68.2 %, with the three crops at equal weight 67.6 %.
    package static let faceIsPicture: [EmotionView] = [
        .meshCrop(scale: 1.0), .wholePicture(zoom: 0.9), .wholePicture(zoom: 1.0), .wholePicture(zoom: 1.1),
    ]

    /// The views of the face with mesh `points` (frame pixels) in `frame`.
    ///
    /// `faceIsPicture` when the mesh's box covers at least `faceCropShare` of the frame, else
    /// `faceInPicture`. The first view is the same in both, so a stream whose face crosses the line
    /// keeps its most recent crop.
    package static func views(of points: [Point3D], in frame: Frame) -> [EmotionView] {
        let isFaceCrop = FaceMesh.bounds(of: points).area >= faceCropShare * frame.bounds.area
        return isFaceCrop ? faceIsPicture : faceInPicture
    }

    /// The transform from `frame` pixels to this view's `size` x `size` input, or nil when a mesh crop
    /// has no usable mesh.
    package func transform(points: [Point3D], in frame: Frame, size: Int) -> AffineTransform? {
        switch self {
        case .meshCrop(let scale):
            return EmotionCrop.transform(points: points, size: size, scale: scale)
        case .wholePicture(let zoom):
            guard zoom > 0, frame.width > 0, frame.height > 0 else { return nil }
            return Self.wholePicture(of: frame, size: size, zoom: zoom)
        }
    }

    /// The transform from `frame` pixels to a `size` x `size` input showing `zoom` (> 0) times the
    /// picture's width and height about its centre; zoom 1 stretches the picture corner to corner.
    package static func wholePicture(of frame: Frame, size: Int, zoom: Double = 1) -> AffineTransform {
        let sx = Double(size) / (Double(frame.width) * zoom)
        let sy = Double(size) / (Double(frame.height) * zoom)
        // Scale about the picture's centre, which lands in the middle of the input.
        let half = Double(size) / 2
        return AffineTransform(
            a: sx, b: 0, tx: half - sx * Double(frame.width) / 2, c: 0, d: sy, ty: half - sy * Double(frame.height) / 2)
    }
}
