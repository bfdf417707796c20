/// A JSON key known only at run time (a score's name, a derived metric's name), for types that write their
/// keys from data rather than from a fixed list.
package struct NameCodingKey: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}
