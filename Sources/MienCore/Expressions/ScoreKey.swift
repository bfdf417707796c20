/// The name of one score in a family of scores (an expression, an emoji, an emotion), spelled as
/// Affdex spells it in its raw value.
public protocol ScoreKey: CaseIterable, Hashable, Sendable, Codable, RawRepresentable
where RawValue == String, AllCases == [Self] {}

extension ScoreKey {
    /// Position in `allCases`.
    var position: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}
