/// Which faces the detector is tuned for (Affdex `FaceDetectorMode`).
public enum FaceMode: String, Sendable, Codable, CaseIterable {
    /// `LARGE_FACES`: faces that fill a good part of the frame, within about 2 m of a camera (a webcam
    /// user, a selfie). Runs MediaPipe's short-range BlazeFace at 128 x 128. Faster.
    case large
    /// `SMALL_FACES`: small or distant faces (a group photo, a room camera). Runs MediaPipe's full-range
    /// BlazeFace at 192 x 192 on the whole frame and, when the frame is large, also on overlapping
    /// tiles, so faces down to about 30 px wide are found.
    case small
}
