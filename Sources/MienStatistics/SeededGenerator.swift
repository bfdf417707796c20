/// A random number generator that gives the same sequence for the same seed on every machine and Swift
/// version: xoshiro256** (Blackman & Vigna) seeded through SplitMix64, with bounded integers drawn by
/// Lemire's multiply-and-reject (the standard library's `random(in:using:)` may change how it draws).
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    package init(seed: UInt64) {
        var mix = seed
        func next() -> UInt64 {
            mix &+= 0x9E37_79B9_7F4A_7C15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    package mutating func next() -> UInt64 {
        func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    /// A uniform integer in 0..<bound (bound > 0).
    package mutating func below(_ bound: Int) -> Int {
        let range = UInt64(clamping: bound)
        var product = next().multipliedFullWidth(by: range)
        if product.low < range {
            let threshold = (0 &- range) % range
            while product.low < threshold { product = next().multipliedFullWidth(by: range) }
        }
        return Int(truncatingIfNeeded: product.high)
    }

    /// `values` in a uniformly random order (Fisher–Yates).
    package mutating func shuffled<T>(_ values: [T]) -> [T] {
        var values = values
        guard values.count > 1 else { return values }
        for index in stride(from: values.count - 1, to: 0, by: -1) {
            values.swapAt(index, below(index + 1))
        }
        return values
    }
}
