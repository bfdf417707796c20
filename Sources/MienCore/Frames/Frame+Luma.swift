extension Frame {
    /// Luma (0...255, ITU-R BT.601 weights) of the pixel at column `x`, row `y`, clamped to the frame.
    public func luma(x: Int, y: Int) -> Double {
        let x = min(width - 1, max(0, x))
        let y = min(height - 1, max(0, y))
        let o = y * stride + x * Frame.channels
        return 0.114 * Double(pixels[o]) + 0.587 * Double(pixels[o + 1]) + 0.299 * Double(pixels[o + 2])
    }

    /// Luma at `p` in frame pixels (pixel centres at integer coordinates), interpolated between its 4
    /// neighbours; clamped to the frame.
    public func interpolatedLuma(at p: Point) -> Double {
        let (x0, y0) = (Int(p.x.rounded(.down)), Int(p.y.rounded(.down)))
        let (fx, fy) = (p.x - Double(x0), p.y - Double(y0))
        let top = (1 - fx) * luma(x: x0, y: y0) + fx * luma(x: x0 + 1, y: y0)
        let bottom = (1 - fx) * luma(x: x0, y: y0 + 1) + fx * luma(x: x0 + 1, y: y0 + 1)
        return (1 - fy) * top + fy * bottom
    }
}
