import MienCore

extension CanonicalFaceModel {
    /// Loads MediaPipe's canonical face from the verified models directory.
    package init(models: ModelStore) throws {
        do {
            try self.init(metadata: [UInt8](models.bytes(of: .faceGeometry)))
        } catch let error as MienError {
            throw error.naming(ModelDescriptor.faceGeometry.fileName)
        }
    }
}
