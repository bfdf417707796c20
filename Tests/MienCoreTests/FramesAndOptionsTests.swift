import MienCore
import Testing

@Suite("Frames, pushed sources, options and errors")
struct FramesAndOptionsTests {
    @Test func frame_withWrongByteCount_throwsInvalidArgument() {
        #expect(throws: MienError.self) { try Frame(width: 2, height: 2, pixels: [0, 0, 0]) }
        #expect(throws: MienError.self) { try Frame(width: 0, height: 2, pixels: []) }
        #expect(throws: MienError.self) { try Frame(width: 1, height: 1, pixels: [0, 0, 0], timestamp: .nan) }
    }

    @Test func pushedFrames_comeOutInOrder_andNonMonotonicTimestampsThrow() throws {
        let source = PushedFrameSource()
        try source.push(Frame(width: 1, height: 1, pixels: [1, 2, 3], timestamp: 0.5))
        try source.push(Frame(width: 1, height: 1, pixels: [4, 5, 6], timestamp: 1.0))
        let error = #expect(throws: MienError.self) {
            try source.push(Frame(width: 1, height: 1, pixels: [7, 8, 9], timestamp: 1.0))
        }
        #expect(error?.code == .nonMonotonicTimestamp)
        let first = try #require(try source.nextFrame())
        let second = try #require(try source.nextFrame())
        #expect(first.timestamp == 0.5 && first.index == 0 && second.index == 1 && second.pixels == [4, 5, 6])
        #expect(try source.nextFrame() == nil)
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
