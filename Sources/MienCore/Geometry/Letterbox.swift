/// Fits a frame into a model's square (or any) input while keeping its aspect ratio, centred, with
/// padding on the short side, as MediaPipe's `ImageToTensorCalculator` does with `keep_aspect_ratio`.
///
/// Squashing a 16:9 frame into a square would make faces look thin and shift the detector's boxes; a
/// letterbox keeps faces their true shape and maps back exactly.
package struct Letterbox: Sendable, Equatable {
    /// Maps frame pixels to tensor pixels.
    package let tensorFromFrame: AffineTransform
    /// Maps tensor pixels back to frame pixels.
    package let frameFromTensor: AffineTransform

    /// - Parameters:
    ///   - region: the part of the frame to fit, in frame pixels (the whole frame, or a tile).
    ///   - width, height: the tensor size in pixels.
    package init(region: Rect, width: Int, height: Int) {
        let scale = min(Double(width) / region.width, Double(height) / region.height)
        let padX = (Double(width) - region.width * scale) / 2
        let padY = (Double(height) - region.height * scale) / 2
        tensorFromFrame = .scale(scale, thenTranslate: padX - region.x * scale, padY - region.y * scale)
        frameFromTensor = .scale(1 / scale, thenTranslate: region.x - padX / scale, region.y - padY / scale)
    }
}
