/// Options of the face-detection stage, validated when created.
public struct DetectionOptions: Sendable, Equatable, Codable {
    /// Which detector model and strategy to use.
    ///
    /// Default `.large`, as Affdex's camera default.
    public var faceMode: FaceMode
    /// At most this many faces are returned, the most confident ones.
    ///
    /// Default 5; 1...64.
    ///
    /// Affdex's sample apps used a handful of faces; every face costs a mesh and classifiers later on.
    public var maximumFaces: Int
    /// Detections below this confidence (0...1) are dropped.
    ///
    /// Default 0.5, MediaPipe's face-detector
    /// default: lower finds more partly hidden faces and more false ones.
    public var minimumConfidence: Double
    /// Detections that overlap a more confident one by more than this intersection-over-union are
    /// merged into it (weighted NMS).
    ///
    /// Default 0.3, MediaPipe's value.
    public var suppressionThreshold: Double
    /// Still images only: when the detector finds no face, read the whole picture as one face.
    ///
    /// Default true. For pictures that are face crops (FER-2013's 48 x 48 faces, JAFFE, LFW crops, passport
    /// thumbnails): the face fills the picture, and the detector, which learnt faces with some
    /// surroundings, misses many of them. The whole picture becomes the mesh's region
    /// (`FaceRegion.init(wholePicture:)`); it is a face when the mesh finds one there and again in the crop
    /// that first mesh gives, both with presence `FaceTracker.wholePicturePresence` (0.9) or more; the face's
    /// `confidence` is then the presence.
    /// On muxspace's 1,170 crops the detector alone finds 1,063 and this 77 more (MediaPipe: 1,111); on
    /// the evaluation's 302 non-face pictures and patches (dogs, grass, skimage's non-faces) it adds none.
    /// A picture without a detected face costs two more mesh runs. In streams the tracker's detector
    /// schedule applies and this is ignored.
    public var wholePictureFallback: Bool

    /// `maximumFaces`' default, for every front end (the `Detector`, the command line).
    public static let defaultMaximumFaces = 5
    /// `minimumConfidence`'s default.
    public static let defaultMinimumConfidence = 0.5
    /// The range `maximumFaces` must be in.
    public static let maximumFacesRange = 1...64

    /// - Throws: `MienError.Code.invalidOptions` for out-of-range values.
    public init(
        faceMode: FaceMode = .large, maximumFaces: Int = defaultMaximumFaces,
        minimumConfidence: Double = defaultMinimumConfidence,
        suppressionThreshold: Double = 0.3, wholePictureFallback: Bool = true
    ) throws {
        guard Self.maximumFacesRange.contains(maximumFaces) else {
            throw MienError(.invalidOptions, "maximumFaces must be 1...64, got \(maximumFaces)")
        }
        guard minimumConfidence >= 0, minimumConfidence <= 1 else {
            throw MienError(.invalidOptions, "minimumConfidence must be 0...1, got \(minimumConfidence)")
        }
        // Written as comparisons so NaN fails them.
        guard suppressionThreshold > 0, suppressionThreshold < 1 else {
            throw MienError(.invalidOptions, "suppressionThreshold must be in (0, 1), got \(suppressionThreshold)")
        }
        self.faceMode = faceMode
        self.maximumFaces = maximumFaces
        self.minimumConfidence = minimumConfidence
        self.suppressionThreshold = suppressionThreshold
        self.wholePictureFallback = wholePictureFallback
    }
}
