/// The similarity transform (scale, rotation, translation) that best maps one weighted 3-D point set
/// onto another in the least-squares sense, by Horn's closed-form quaternion method.
///
/// Used to fit MediaPipe's canonical face to a measured mesh; the rotation is the head pose.
package enum WeightedProcrustes {
    /// A 3 x 3 rotation matrix, row-major.
    package typealias Matrix3 = [[Double]]

    /// The fit `target ≈ scale * rotation * source + translation`.
    package struct Fit: Sendable, Equatable {
        package var scale: Double
        package var rotation: Matrix3
        package var translation: Point3D
    }

    /// Fits `source` to `target` with per-point `weights` (all three the same length, weights >= 0).
    /// - Returns: nil when there are fewer than 3 points or all weights are 0.
    package static func fit(source: [Point3D], target: [Point3D], weights: [Double]) -> Fit? {
        let n = min(source.count, target.count, weights.count)
        let total = weights.prefix(n).reduce(0, +)
        guard n >= 3, total > 0 else { return nil }
        var cs = Point3D(x: 0, y: 0, z: 0)
        var ct = cs
        for i in 0..<n {
            cs = cs + (weights[i] / total) * source[i]
            ct = ct + (weights[i] / total) * target[i]
        }
        // Cross-covariance M = Σ w (s - cs)(t - ct)^T, and the source spread for the scale.
        var m = [[Double]](repeating: [0, 0, 0], count: 3)
        var spread = 0.0
        for i in 0..<n {
            let s = source[i] - cs
            let t = target[i] - ct
            let w = weights[i]
            let sv = [s.x, s.y, s.z]
            let tv = [t.x, t.y, t.z]
            for r in 0..<3 { for c in 0..<3 { m[r][c] += w * sv[r] * tv[c] } }
            spread += w * (s.x * s.x + s.y * s.y + s.z * s.z)
        }
        guard spread > 0 else { return nil }
        let (sxx, sxy, sxz) = (m[0][0], m[0][1], m[0][2])
        let (syx, syy, syz) = (m[1][0], m[1][1], m[1][2])
        let (szx, szy, szz) = (m[2][0], m[2][1], m[2][2])
        let k: [[Double]] = [
            [sxx + syy + szz, syz - szy, szx - sxz, sxy - syx],
            [syz - szy, sxx - syy - szz, sxy + syx, szx + sxz],
            [szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy],
            [sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz],
        ]
        let q = SymmetricEigen.largestEigenvector(k)
        let (w, x, y, z) = (q[0], q[1], q[2], q[3])
        let rotation: Matrix3 = [
            [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z],
        ]
        // Optimal scale: Σ w (t - ct)·R(s - cs) / Σ w |s - cs|².
        var dot = 0.0
        for i in 0..<n {
            let s = source[i] - cs
            let t = target[i] - ct
            let r = apply(rotation, s)
            dot += weights[i] * (t.x * r.x + t.y * r.y + t.z * r.z)
        }
        let scale = dot / spread
        let translation = ct - scale * apply(rotation, cs)
        return Fit(scale: scale, rotation: rotation, translation: translation)
    }

    /// `matrix · p`.
    package static func apply(_ matrix: Matrix3, _ p: Point3D) -> Point3D {
        Point3D(
            x: matrix[0][0] * p.x + matrix[0][1] * p.y + matrix[0][2] * p.z,
            y: matrix[1][0] * p.x + matrix[1][1] * p.y + matrix[1][2] * p.z,
            z: matrix[2][0] * p.x + matrix[2][1] * p.y + matrix[2][2] * p.z)
    }
}

/// Eigen-decomposition of small symmetric matrices by cyclic Jacobi rotations.
enum SymmetricEigen {
    /// Jacobi sweeps: a 4 x 4 matrix converges to double precision in well under 10.
    static let maximumSweeps = 50

    /// The unit eigenvector of the largest eigenvalue of the symmetric matrix `a`.
    static func largestEigenvector(_ matrix: [[Double]]) -> [Double] {
        var a = matrix
        let n = a.count
        var v = (0..<n).map { i in (0..<n).map { j in i == j ? 1.0 : 0.0 } }
        for _ in 0..<maximumSweeps {
            var off = 0.0
            for p in 0..<n { for q in (p + 1)..<n { off += a[p][q] * a[p][q] } }
            if off < 1e-22 { break }
            for p in 0..<n {
                for q in (p + 1)..<n where abs(a[p][q]) > 1e-300 {
                    let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot()
                    let s = t * c
                    for k in 0..<n {
                        let akp = a[k][p]
                        let akq = a[k][q]
                        a[k][p] = c * akp - s * akq
                        a[k][q] = s * akp + c * akq
                    }
                    for k in 0..<n {
                        let apk = a[p][k]
                        let aqk = a[q][k]
                        a[p][k] = c * apk - s * aqk
                        a[q][k] = s * apk + c * aqk
                    }
                    for k in 0..<n {
                        let vkp = v[k][p]
                        let vkq = v[k][q]
                        v[k][p] = c * vkp - s * vkq
                        v[k][q] = s * vkp + c * vkq
                    }
                }
            }
        }
        let best = (0..<n).max { a[$0][$0] < a[$1][$1] } ?? 0
        let vector = (0..<n).map { v[$0][best] }
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? vector.map { $0 / norm } : vector
    }
}
