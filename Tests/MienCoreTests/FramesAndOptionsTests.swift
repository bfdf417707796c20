import MienCore
import Testing

@Suite("Frames, options and errors")
struct FramesAndOptionsTests {
    @Test func frame_withWrongByteCount_throwsInvalidArgument() {
        #expect(throws: MienError.self) { try Frame(width: 2, height: 2, pixels: [0, 0, 0]) }
        #expect(throws: MienError.self) { try Frame(width: 0, height: 2, pixels: []) }
        #expect(throws: MienError.self) { try Frame(width: 1, height: 1, pixels: [0, 0, 0], timestamp: .nan) }
    }

    @Test func detectionOptions_validateTheirRanges() throws {
        #expect(throws: MienError.self) { try DetectionOptions(maximumFaces: 0) }
        #expect(throws: MienError.self) { try DetectionOptions(minimumConfidence: 1.5) }
        #expect(throws: MienError.self) { try DetectionOptions(suppressionThreshold: 0) }
        let options = try DetectionOptions()
        #expect(options.faceMode == .large && options.maximumFaces == 5 && options.minimumConfidence == 0.5)
    }

    @Test func error_descriptionNamesTheInput() {
        let error = MienError(.corruptData, "could not be decoded", input: "a.jpg", cause: "libjpeg said no")
        #expect(error.description == "a.jpg: could not be decoded (libjpeg said no)")
        #expect(error.naming("b.jpg").input == "a.jpg")
        #expect(MienError(.notFound, "x").naming("b.jpg").input == "b.jpg")
    }
}
