/// An 8-bit RGB colour.
public struct Colour: Sendable, Equatable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `a` blended toward `b` by `t` (0 = a, 1 = b).
    public static func mix(_ a: Colour, _ b: Colour, _ t: Double) -> Colour {
        let t = min(1, max(0, t))
        func channel(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) * (1 - t) + Double(y) * t).rounded()) }
        return Colour(red: channel(a.red, b.red), green: channel(a.green, b.green), blue: channel(a.blue, b.blue))
    }
}

/// Something to draw on a frame, in frame pixels.
package enum Shape: Sendable, Equatable {
    /// A box outline of `thickness` pixels, or filled.
    case rectangle(Rect, Colour, thickness: Int, filled: Bool)
    case line(from: Point, to: Point, Colour, thickness: Int)
    case circle(center: Point, radius: Double, Colour, filled: Bool)
    /// ASCII text with its baseline starting at `at`; `scale` 0.5 is about 12 pixels high.
    case text(String, at: Point, scale: Double, Colour, thickness: Int)
}
