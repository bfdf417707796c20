import Foundation

/// Checks JSON values against a JSON Schema (draft 2020-12), for the keywords Mien's published schemas
/// use: `type`, `properties`, `required`, `additionalProperties`, `propertyNames.pattern`, `items`,
/// `minItems` / `maxItems`, `minProperties` / `maxProperties`, `enum`, `minimum` / `maximum` and local
/// `$ref`s (`#/$defs/name`).
///
/// A keyword it does not know is an error rather than silently passing, so the schema cannot grow a
/// rule that the tests do not check.
public struct JSONSchemaValidator {
    private let root: [String: Any]

    /// Keywords that describe rather than constrain.
    private static let annotations: Set<String> = ["$schema", "$id", "$comment", "title", "description", "$defs"]

    /// Reads the schema at `path`.
    public init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ValidationFailure(path: path, message: "the schema is not a JSON object")
        }
        self.root = root
    }

    /// Checks against `schema`, a JSON Schema already parsed (for example one of an OpenAPI document's
    /// `components.schemas`).
    public init(schema: [String: Any]) {
        root = schema
    }

    /// One way a value breaks the schema.
    public struct ValidationFailure: Error, CustomStringConvertible {
        /// Where in the value, as a JSON pointer-like path ("$.faces.0.faceBounds").
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Every way `value` (a `JSONSerialization` object) breaks the schema; empty when it is valid.
    public func failures(of value: Any) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        check(value, against: root, at: "$", into: &failures)
        return failures
    }

    /// Every way the JSON text `line` breaks the schema.
    public func failures(ofJSON line: String) -> [ValidationFailure] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) else {
            return [ValidationFailure(path: "$", message: "not JSON")]
        }
        return failures(of: value)
    }

    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let ref = schema["$ref"] as? String, ref.hasPrefix("#/$defs/"),
            let definitions = root["$defs"] as? [String: Any],
            let target = definitions[String(ref.dropFirst("#/$defs/".count))] as? [String: Any]
        else { return schema }
        return target
    }

    private func check(
        _ value: Any, against given: [String: Any], at path: String, into failures: inout [ValidationFailure]
    ) {
        let schema = resolve(given)
        func fail(_ message: String) { failures.append(ValidationFailure(path: path, message: message)) }
        for key in schema.keys where !Self.annotations.contains(key) && !Self.known.contains(key) {
            fail("the validator does not know the keyword \(key)")
        }
        if let type = schema["type"] as? String, !Self.has(value, type: type) { fail("expected \(type), got \(value)") }
        if let choices = schema["enum"] as? [Any], !choices.contains(where: { Self.equal($0, value) }) {
            fail("\(value) is not one of \(choices)")
        }
        if let number = Self.number(value) {
            if let minimum = schema["minimum"] as? Double, number < minimum { fail("\(number) < minimum \(minimum)") }
            if let maximum = schema["maximum"] as? Double, number > maximum { fail("\(number) > maximum \(maximum)") }
        }
        if let array = value as? [Any] {
            if let minimum = schema["minItems"] as? Int, array.count < minimum {
                fail("\(array.count) items < \(minimum)")
            }
            if let maximum = schema["maxItems"] as? Int, array.count > maximum {
                fail("\(array.count) items > \(maximum)")
            }
            if let items = schema["items"] as? [String: Any] {
                for (index, item) in array.enumerated() {
                    check(item, against: items, at: "\(path)[\(index)]", into: &failures)
                }
            }
        }
        guard let object = value as? [String: Any] else { return }
        if let minimum = schema["minProperties"] as? Int, object.count < minimum {
            fail("\(object.count) keys < \(minimum)")
        }
        if let maximum = schema["maxProperties"] as? Int, object.count > maximum {
            fail("\(object.count) keys > \(maximum)")
        }
        for key in schema["required"] as? [String] ?? [] where object[key] == nil { fail("missing \(key)") }
        let properties = schema["properties"] as? [String: Any] ?? [:]
        if let names = schema["propertyNames"] as? [String: Any], let pattern = names["pattern"] as? String {
            for key in object.keys where key.range(of: pattern, options: .regularExpression) == nil {
                fail("key \(key) does not match \(pattern)")
            }
        }
        for (key, item) in object {
            if let property = properties[key] as? [String: Any] {
                check(item, against: property, at: "\(path).\(key)", into: &failures)
            } else if let additional = schema["additionalProperties"] as? [String: Any] {
                check(item, against: additional, at: "\(path).\(key)", into: &failures)
            } else if let additional = schema["additionalProperties"] as? Bool, !additional {
                fail("unexpected key \(key)")
            }
        }
    }

    private static let known: Set<String> = [
        "$ref", "type", "enum", "minimum", "maximum", "minItems", "maxItems", "items", "minProperties",
        "maxProperties", "required", "properties", "propertyNames", "additionalProperties",
    ]

    private static func has(_ value: Any, type: String) -> Bool {
        switch type {
        case "object": value is [String: Any]
        case "array": value is [Any]
        case "string": value is String
        case "boolean": isBoolean(value)
        case "number": number(value) != nil
        case "integer": number(value).map { $0 == $0.rounded() } ?? false
        default: false
        }
    }

    /// JSONSerialization gives booleans as NSNumber too (and `1 is Bool` holds); tell them apart by their
    /// Objective-C type code, "c" for a boolean.
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    private static func number(_ value: Any) -> Double? {
        guard !isBoolean(value), let number = value as? NSNumber else { return nil }
        return number.doubleValue
    }

    private static func equal(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? String, let b = b as? String { return a == b }
        if let a = number(a), let b = number(b) { return a == b }
        return false
    }
}
