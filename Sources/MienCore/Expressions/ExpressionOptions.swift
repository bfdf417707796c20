/// Options of the expression stage (expressions, emoji and their quality flags).
package struct ExpressionOptions: Sendable, Equatable {
    /// The per-person neutral baseline applied in streams (video, camera, continuous images); nil turns
    /// it off.
    ///
    /// Default on with `BaselineOptions()`'s defaults. Discrete images always use population
    /// norms.
    package var baseline: BaselineOptions?
    /// Beyond these limits a face's scores are flagged.
    ///
    /// Default `ReliabilityLimits.standard`.
    package var limits: ReliabilityLimits

    package init(baseline: BaselineOptions? = nil, limits: ReliabilityLimits? = nil) throws {
        self.baseline = try baseline ?? BaselineOptions()
        self.limits = limits ?? .standard
    }

    /// The same options without the per-person baseline.
    package var withoutBaseline: ExpressionOptions {
        var copy = self
        copy.baseline = nil
        return copy
    }
}
