import Foundation
import MienTesting
import Testing
import Yams

/// The checked-in OpenAPI document (`Sources/MienService/Resources/openapi.yaml`), read for the tests
/// that validate the service's real responses against it.
struct OpenAPIDocument {
    static var path: String {
        SampleMedia.repositoryRoot.appendingPathComponent("Sources/MienService/Resources/openapi.yaml").path
    }

    let root: [String: Any]

    init() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        root = try #require(try Yams.load(yaml: text) as? [String: Any], "openapi.yaml is not a YAML mapping")
    }

    /// The paths it describes, with their methods.
    var operations: Set<String> {
        let paths = root["paths"] as? [String: Any] ?? [:]
        var result = Set<String>()
        for (path, item) in paths {
            for method in (item as? [String: Any] ?? [:]).keys { result.insert("\(method.uppercased()) \(path)") }
        }
        return result
    }

    /// A validator for `components.schemas[name]`.
    func schema(_ name: String) throws -> JSONSchemaValidator {
        let components = root["components"] as? [String: Any]
        let schemas = components?["schemas"] as? [String: Any]
        return JSONSchemaValidator(schema: try #require(schemas?[name] as? [String: Any], "no schema \(name)"))
    }
}
