/// How sharp an aligned face chip is: the root mean square of the luma Laplacian (4-neighbour) over the
/// chip's inner half, in grey levels.
///
/// Measured on the chip rather than the frame, so that every face is judged at the same scale (150 pixels
/// across): a face upscaled from a few pixels, defocused or smeared by motion has little energy at the
/// chip's finest scale, whatever its size in the frame.
package enum ChipSharpness {
    /// The chip's sharpness in grey levels (0 for a flat chip); the inner half avoids the padding, where the
    /// background and hair dominate.
    package static func of(_ chip: Frame) -> Double {
        let x0 = chip.width / 4
        let y0 = chip.height / 4
        let x1 = chip.width - x0
        let y1 = chip.height - y0
        guard x1 - x0 >= 3, y1 - y0 >= 3 else { return 0 }
        var sum = 0.0
        var count = 0
        for y in (y0 + 1)..<(y1 - 1) {
            for x in (x0 + 1)..<(x1 - 1) {
                let laplacian =
                    chip.luma(x: x - 1, y: y) + chip.luma(x: x + 1, y: y) + chip.luma(x: x, y: y - 1)
                    + chip.luma(x: x, y: y + 1) - 4 * chip.luma(x: x, y: y)
                sum += laplacian * laplacian
                count += 1
            }
        }
        return (sum / Double(count)).squareRoot()
    }
}
