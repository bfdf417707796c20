/// A face's identity as dlib's recognition network describes it: 128 numbers, close together (Euclidean
/// distance) for pictures of one person and far apart for two people.
///
/// Held in memory only, for re-identification; never written to any output (faces are biometric data).
package struct FaceDescriptor: Sendable, Equatable, Codable {
    /// The network's 128 outputs, unitless (their norm is about 1.3 for dlib's model).
    package let values: [Float]

    /// The length of dlib's descriptor.
    package static let count = 128

    /// - Throws: `.invalidArgument` unless `values` has `FaceDescriptor.count` finite numbers.
    package init(values: [Float]) throws {
        guard values.count == Self.count, values.allSatisfy(\.isFinite) else {
            throw MienError(.invalidArgument, "a face descriptor is \(Self.count) finite numbers, got \(values.count)")
        }
        self.values = values
    }

    private init(checked values: [Float]) {
        self.values = values
    }

    /// Euclidean distance to `other`: 0 for identical descriptors; dlib's own same-person threshold is 0.6.
    package func distance(to other: FaceDescriptor) -> Double {
        var sum: Float = 0
        for (a, b) in zip(values, other.values) {
            let d = a - b
            sum += d * d
        }
        return Double(sum.squareRoot())
    }

    /// The element-wise mean of `descriptors` (several frames of one face: less noise than any one of
    /// them), or nil for none.
    package static func mean(of descriptors: [FaceDescriptor]) -> FaceDescriptor? {
        guard let first = descriptors.first else { return nil }
        var sum = first.values
        for descriptor in descriptors.dropFirst() {
            for i in sum.indices { sum[i] += descriptor.values[i] }
        }
        let n = Float(descriptors.count)
        return FaceDescriptor(checked: sum.map { $0 / n })
    }
}
