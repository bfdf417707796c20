/// Where a detector looks in a frame: the whole frame, plus overlapping tiles when faces of the wanted
/// minimum size would be too small for the model at whole-frame scale.
///
/// A detector with a fixed input (192 x 192 for BlazeFace full range) sees a 1920-pixel-wide frame at
/// one tenth of its size, where a 35-pixel face shrinks to 3.5 pixels, below what the model resolves.
/// Running the model on tiles magnifies them. Tiles overlap by at least `largestTiledFace` so that
/// every face small enough to need a tile fits whole inside at least one tile; larger faces are found
/// on the whole frame.
package struct TilePlan: Sendable, Equatable {
    /// The smallest face wanted, in frame pixels.
    package var minimumFaceSize: Double
    /// The smallest face the model finds reliably, in its input pixels.
    package var modelMinimumFace: Double
    /// The model's (square) input side in pixels.
    package var modelInput: Double
    /// At most this many tiles per axis, which bounds the cost (tiles x tiles runs of the model).
    package var maximumTilesPerAxis: Int

    package init(minimumFaceSize: Double, modelMinimumFace: Double, modelInput: Double, maximumTilesPerAxis: Int) {
        self.minimumFaceSize = minimumFaceSize
        self.modelMinimumFace = modelMinimumFace
        self.modelInput = modelInput
        self.maximumTilesPerAxis = maximumTilesPerAxis
    }

    /// The regions to run the model on, in frame pixels: the whole frame first, then the tiles.
    package func regions(width: Int, height: Int) -> [Rect] {
        let whole = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
        // The largest region side at which a minimum-size face still covers `modelMinimumFace` pixels.
        let maximumSide = modelInput * minimumFaceSize / modelMinimumFace
        let longSide = Double(max(width, height))
        guard longSide > maximumSide else { return [whole] }
        let overlap = minimumFaceSize * 2
        func splits(_ length: Double) -> [(start: Double, length: Double)] {
            guard length > maximumSide else { return [(0, length)] }
            let count = min(maximumTilesPerAxis, Int(((length - overlap) / (maximumSide - overlap)).rounded(.up)))
            let size = min(length, (length + overlap * Double(count - 1)) / Double(count))
            let step = count > 1 ? (length - size) / Double(count - 1) : 0
            return (0..<count).map { (Double($0) * step, size) }
        }
        var regions = [whole]
        for row in splits(Double(height)) {
            for column in splits(Double(width)) {
                // Square-ish tiles use the model's square input fully; keep the true extent otherwise.
                regions.append(Rect(x: column.start, y: row.start, width: column.length, height: row.length))
            }
        }
        // One tile covering the whole frame would only repeat the whole-frame run.
        return regions.count == 2 ? [whole] : regions
    }
}
