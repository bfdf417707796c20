/// One SSD anchor, in normalised tensor coordinates (0...1 across the model's input).
package struct Anchor: Sendable, Equatable {
    package var centerX: Double
    package var centerY: Double
    package var width: Double
    package var height: Double

    package init(centerX: Double, centerY: Double, width: Double, height: Double) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
    }
}

/// The anchor layout of a single-shot detector, as MediaPipe's `SsdAnchorsCalculator` defines it.
///
/// The BlazeFace models regress boxes relative to these anchors; the layout must match the one the
/// model was trained with, so the two presets below copy MediaPipe's graph options exactly.
package struct SSDAnchorOptions: Sendable, Equatable {
    package var inputWidth: Int
    package var inputHeight: Int
    package var minScale: Double
    package var maxScale: Double
    package var anchorOffset: Double
    package var strides: [Int]
    package var aspectRatios: [Double]
    /// When > 0, one extra anchor per cell with this aspect ratio and the geometric mean of this
    /// layer's and the next layer's scale.
    package var interpolatedScaleAspectRatio: Double
    /// When true every anchor is 1 x 1 (BlazeFace): the regressor predicts absolute sizes.
    package var fixedAnchorSize: Bool

    /// `face_detection_short_range.tflite`: 128 x 128 input, 896 anchors (16x16x2 + 8x8x6).
    package static let blazeFaceShortRange = SSDAnchorOptions(
        inputWidth: 128, inputHeight: 128, minScale: 0.1484375, maxScale: 0.75, anchorOffset: 0.5,
        strides: [8, 16, 16, 16], aspectRatios: [1.0], interpolatedScaleAspectRatio: 1.0, fixedAnchorSize: true)

    /// `face_detection_full_range.tflite`: 192 x 192 input, 2304 anchors (48x48x1).
    package static let blazeFaceFullRange = SSDAnchorOptions(
        inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75, anchorOffset: 0.5,
        strides: [4], aspectRatios: [1.0], interpolatedScaleAspectRatio: 0.0, fixedAnchorSize: true)

    /// Generates the anchors in the order the model's outputs are laid out.
    package func anchors() -> [Anchor] {
        var anchors: [Anchor] = []
        let layers = strides.count
        func scale(_ index: Int) -> Double {
            layers == 1
                ? (minScale + maxScale) / 2 : minScale + (maxScale - minScale) * Double(index) / Double(layers - 1)
        }
        var layer = 0
        while layer < layers {
            var ratios: [Double] = []
            var scales: [Double] = []
            // Consecutive layers with the same stride share one feature map: their anchors interleave.
            var last = layer
            while last < layers, strides[last] == strides[layer] {
                let s = scale(last)
                for ratio in aspectRatios {
                    ratios.append(ratio)
                    scales.append(s)
                }
                if interpolatedScaleAspectRatio > 0 {
                    let next = last == layers - 1 ? 1.0 : scale(last + 1)
                    scales.append((s * next).squareRoot())
                    ratios.append(interpolatedScaleAspectRatio)
                }
                last += 1
            }
            let stride = strides[layer]
            let rows = (inputHeight + stride - 1) / stride
            let columns = (inputWidth + stride - 1) / stride
            for y in 0..<rows {
                for x in 0..<columns {
                    for k in scales.indices {
                        let root = ratios[k].squareRoot()
                        anchors.append(
                            Anchor(
                                centerX: (Double(x) + anchorOffset) / Double(columns),
                                centerY: (Double(y) + anchorOffset) / Double(rows),
                                width: fixedAnchorSize ? 1 : scales[k] * root,
                                height: fixedAnchorSize ? 1 : scales[k] / root))
                    }
                }
            }
            layer = last
        }
        return anchors
    }
}
