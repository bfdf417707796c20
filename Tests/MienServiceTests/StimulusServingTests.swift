import Foundation
import Hummingbird
import HummingbirdTesting
import Mien
import Testing

@testable import MienService

/// A stimulus served as a video element asks for it: whole, or by the byte range it wants (starting, seeking,
/// buffering), streamed from the file.
@Suite("Stimuli served by range")
struct StimulusServingTests {
    @Test func ranges_parseAsTheRFCSays_andWhatCannotBeServedIsSaid() {
        #expect(ByteRange.request(nil, size: 100) == .whole)
        #expect(ByteRange.request("bytes=0-", size: 100) == .part(ByteRange(bytes: 0...99)))
        #expect(ByteRange.request("bytes=10-19", size: 100) == .part(ByteRange(bytes: 10...19)))
        #expect(ByteRange.request("bytes=90-200", size: 100) == .part(ByteRange(bytes: 90...99)))
        #expect(ByteRange.request("bytes=-30", size: 100) == .part(ByteRange(bytes: 70...99)))
        #expect(ByteRange.request("bytes=-300", size: 100) == .part(ByteRange(bytes: 0...99)))
        #expect(ByteRange.request("bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange.request("bytes=-0", size: 100) == .unsatisfiable)
        #expect(ByteRange.request("bytes=0-", size: 0) == .unsatisfiable)
        // Ignored: several ranges, another unit, a backwards or unreadable range.
        for header in ["bytes=0-1,5-9", "items=0-1", "bytes=9-1", "bytes=a-b", "bytes=-", "bytes=5"] {
            #expect(ByteRange.request(header, size: 100) == .whole, "\(header)")
        }
        #expect(ByteRange(bytes: 10...19).contentRange(of: 100) == "bytes 10-19/100")
    }

    @Test func aStimulus_isServedWholeOrByRange_byteForByte() async throws {
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let clip = try Data(contentsOf: parent.appendingPathComponent("ad/stimuli/first.mp4"))
        let service = try MienService(
            options: ServiceOptions(port: 0, token: "s3cret", studiesFolder: parent.path), models: ModelStore())
        try await service.application().test(.router) { client in
            let uri = "/studies/ad/stimuli/first.mp4"
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.acceptRanges] == "bytes")
                #expect(response.headers[.contentLength] == "\(clip.count)")
                #expect(Data(response.body.readableBytesView) == clip)
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=100-1099"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100-1099/\(clip.count)")
                #expect(Data(response.body.readableBytesView) == clip[100...1099])
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=-16"]) { response in
                #expect(response.status == .partialContent)
                #expect(Data(response.body.readableBytesView) == clip.suffix(16))
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=\(clip.count)-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */\(clip.count)")
            }
        }
    }
}
