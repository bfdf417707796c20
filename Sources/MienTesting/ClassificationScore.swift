/// Accuracy and macro-F1 of a classification, over the classes present in the truth.
public struct ClassificationScore<Label: Hashable>: Sendable where Label: Sendable {
    /// Share of right answers, 0...1 (NaN without pairs).
    public let accuracy: Double
    /// Mean over the true classes of their F1 score, 0...1 (NaN without pairs).
    public let macroF1: Double
    /// Number of pairs scored.
    public let count: Int

    public init(_ pairs: [(truth: Label, predicted: Label)]) {
        count = pairs.count
        guard !pairs.isEmpty else {
            accuracy = .nan
            macroF1 = .nan
            return
        }
        accuracy = Double(pairs.filter { $0.truth == $0.predicted }.count) / Double(pairs.count)
        let classes = Set(pairs.map(\.truth))
        let f1 = classes.map { c -> Double in
            let tp = Double(pairs.filter { $0.truth == c && $0.predicted == c }.count)
            let fp = Double(pairs.filter { $0.truth != c && $0.predicted == c }.count)
            let fn = Double(pairs.filter { $0.truth == c && $0.predicted != c }.count)
            return tp + fp + fn > 0 ? 2 * tp / (2 * tp + fp + fn) : 0
        }
        macroF1 = f1.reduce(0, +) / Double(classes.count)
    }
}
