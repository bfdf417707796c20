/// A point with depth.
///
/// Which space it lives in is stated wherever it is stored.
public struct Point3D: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The point without its depth.
    public var xy: Point { Point(x: x, y: y) }

    public static func + (a: Point3D, b: Point3D) -> Point3D { Point3D(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    public static func - (a: Point3D, b: Point3D) -> Point3D { Point3D(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
    public static func * (s: Double, p: Point3D) -> Point3D { Point3D(x: s * p.x, y: s * p.y, z: s * p.z) }

    /// Euclidean length.
    public var length: Double { (x * x + y * y + z * z).squareRoot() }
}
