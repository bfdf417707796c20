/// MediaPipe's canonical 3-D face and the landmark weights its pose solver uses, read from
/// `geometry_pipeline_metadata_landmarks.binarypb` (protobuf `GeometryPipelineMetadata`).
///
/// The model is in centimetres, right-handed: x toward the face's left (image right for a face looking
/// at the camera), y up, z out of the face toward the camera.
package struct CanonicalFaceModel: Sendable {
    /// 468 vertices, indexed like the mesh's first 468 points, in centimetres.
    package let vertices: [Point3D]
    /// Mesh indices and their weights for the rigid fit (MediaPipe's Procrustes basis: stable points
    /// of the forehead, nose and cheeks; no mouth, jaw or eyelids, which move with expressions).
    package let weightedLandmarks: [(index: Int, weight: Double)]

    /// Parses the metadata file.
    /// - Throws: `MienError.Code.modelInvalid` when the bytes are not that message.
    package init(metadata bytes: [UInt8]) throws {
        var vertices: [Point3D] = []
        var weights: [(Int, Double)] = []
        do {
            var top = ProtobufReader(bytes)
            while let field = try top.next() {
                switch (field.number, field.value) {
                case (1, .bytes(let mesh)):
                    var reader = ProtobufReader(mesh)
                    var floats: [Double] = []
                    while let f = try reader.next() {
                        guard f.number == 3 else { continue }  // vertex_buffer; 4 = index_buffer (unused)
                        switch f.value {
                        case .fixed32(let bits): floats.append(Double(Float(bitPattern: bits)))
                        case .bytes(let packed): floats += try ProtobufReader.packedFloats(packed)
                        default: break
                        }
                    }
                    // Vertex layout VERTEX_PT: x, y, z, u, v.
                    for i in stride(from: 0, to: floats.count - 4, by: 5) {
                        vertices.append(Point3D(x: floats[i], y: floats[i + 1], z: floats[i + 2]))
                    }
                case (2, .bytes(let entry)):
                    var reader = ProtobufReader(entry)
                    var index = 0
                    var weight = 0.0
                    while let f = try reader.next() {
                        if f.number == 1, case .varint(let v) = f.value { index = Int(v) }
                        if f.number == 2, case .fixed32(let bits) = f.value { weight = Double(Float(bitPattern: bits)) }
                    }
                    weights.append((index, weight))
                default: continue
                }
            }
        } catch {
            throw MienError(.modelInvalid, "face geometry metadata is not a valid protobuf", cause: "\(error)")
        }
        guard vertices.count == FaceLandmark.meshPointCount, !weights.isEmpty,
            weights.allSatisfy({ $0.0 >= 0 && $0.0 < FaceLandmark.meshPointCount })
        else {
            throw MienError(
                .modelInvalid,
                "face geometry metadata has \(vertices.count) vertices and \(weights.count) weights, expected 468 and some"
            )
        }
        self.vertices = vertices
        weightedLandmarks = weights
    }
}

/// Reads protobuf wire format: enough for the metadata file, with every read bounds-checked.
struct ProtobufReader {
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes([UInt8])
        case fixed32(UInt32)
    }
    struct Malformed: Error {}

    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next field, or nil at the end.
    mutating func next() throws -> (number: Int, value: Value)? {
        guard offset < bytes.count else { return nil }
        let key = try varint()
        let number = Int(key >> 3)
        switch key & 7 {
        case 0: return (number, .varint(try varint()))
        case 1: return (number, .fixed64(try fixed(8)))
        case 2:
            let length = Int(try varint())
            guard length >= 0, offset + length <= bytes.count else { throw Malformed() }
            defer { offset += length }
            return (number, .bytes(Array(bytes[offset..<offset + length])))
        case 5: return (number, .fixed32(UInt32(try fixed(4))))
        default: throw Malformed()
        }
    }

    private mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw Malformed()
    }

    private mutating func fixed(_ count: Int) throws -> UInt64 {
        guard offset + count <= bytes.count else { throw Malformed() }
        var result: UInt64 = 0
        for k in 0..<count { result |= UInt64(bytes[offset + k]) << (8 * UInt64(k)) }
        offset += count
        return result
    }

    static func packedFloats(_ bytes: [UInt8]) throws -> [Double] {
        guard bytes.count % 4 == 0 else { throw Malformed() }
        return stride(from: 0, to: bytes.count, by: 4).map { i in
            let bits =
                UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            return Double(Float(bitPattern: bits))
        }
    }
}
