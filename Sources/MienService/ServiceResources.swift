import Foundation

/// The files the service serves, compiled into the binary (SwiftPM's `embedInCode`), so that a copied
/// `mien` binary serves its page and API description without a resource folder beside it.
enum ServiceResources {
    /// The live page (`GET /`): one self-contained HTML file, no external scripts, fonts or CDNs.
    static var page: [UInt8] { PackageResources.index_html }
    /// The OpenAPI 3.1 description of the service (`GET /openapi.yaml`).
    static var openAPI: [UInt8] { PackageResources.openapi_yaml }
    /// The JSON Schema of one `DetectorResult` (`GET /detector-result.schema.json`), the same file as
    /// `Schema/detector-result.schema.json`.
    static var resultSchema: [UInt8] { PackageResources.detector_result_schema_json }
}

extension ServiceResources {
    /// A collected study's participant page (`GET /studies/{name}`): consent, camera, framing check, stimuli.
    static var participantPage: [UInt8] { PackageResources.participant_html }
    /// A collected study's dashboard (`GET /studies/{name}/dashboard`, service token).
    static var dashboardPage: [UInt8] { PackageResources.dashboard_html }
}
