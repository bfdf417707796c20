import Foundation
import MienStudies
import MienTesting
import Testing

@testable import Mien

/// What a collected study's consent and `STORED.md` say is kept, against what its server really writes for a
/// face: every key of a real row is named, and a study that keeps no appearance or landmarks has neither in its
/// rows nor in its words.
@Suite("A collected study says what it keeps")
struct CollectionDisclosureTests {
    /// The face of the sample as a stimulus socket's writers store it, as JSON keys.
    static func storedKeys(_ stored: CollectionSettings.Stored) throws -> Set<String> {
        let lines = LineLog()
        let writers = CollectionAnalysis.writers([JSONLinesWriter(stream: { lines.append($0) })], stored: stored)
        let detector = Detector(
            source: .pushed(name: "sample", mode: .video),
            options: try CollectionAnalysis.options(stored), models: try repositoryModels(), writers: writers)
        try detector.start()
        let picture = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        for index in 0..<3 {
            var frame = picture
            frame.timestamp = Double(index) / 10
            try detector.push(frame)
        }
        detector.stop()
        var keys = Set<String>()
        for line in lines.all {
            let row = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            for case let face as [String: Any] in (row["faces"] as? [String: Any] ?? [:]).values {
                keys.formUnion(face.keys)
            }
        }
        return keys
    }

    @Test(arguments: [
        CollectionSettings.Stored(), CollectionSettings.Stored(appearance: false, landmarks: false),
    ])
    func everyStoredKeyIsNamed_andWhatIsNotKeptIsNeitherStoredNorSaid(stored: CollectionSettings.Stored) throws {
        let keys = try Self.storedKeys(stored)
        #expect(!keys.isEmpty)
        let named = Set(CollectionDisclosure.fields(stored).flatMap(\.keys))
        #expect(keys.subtracting(named).isEmpty, "stored but not said: \(keys.subtracting(named).sorted())")
        let settings = try CollectionSettings(
            stimuli: [.init(name: "ad", file: "ad.mp4", sha256: "", duration: 30)], consent: "", stored: stored)
        let consent = CollectionDisclosure.consent(settings)
        let note = CollectionDisclosure.storedNote(settings)
        for field in CollectionDisclosure.fields(stored) {
            #expect(consent.contains(field.words) && note.contains(field.words), "\(field.keys)")
        }
        #expect(keys.contains("facePoints") == stored.landmarks)
        #expect(keys.contains("gender") == stored.appearance && keys.contains("ageYears") == stored.appearance)
        #expect(consent.contains("34 points") == stored.landmarks && consent.contains("gender") == stored.appearance)
        #expect(consent.contains("[CONTACT"), "no contact given: the consent says one is needed")
        #expect(consent.contains("[RETENTION"), "no retention given: the consent says one is needed")
        // What STORED.md lists of a session is in the consent too (issue 77): attempts, checks, last seen.
        for words in ["last seen", "interrupted try", "position check", "completion code", "dashboard"] {
            #expect(consent.contains(words), "\(words)")
        }
        var kept = settings
        kept.researcher.retention = "until 31 December 2028"
        #expect(CollectionDisclosure.consent(kept).contains("kept until 31 December 2028 on the study's server"))
        #expect(CollectionDisclosure.storedNote(kept).contains("Kept: until 31 December 2028"))
    }
}

/// Lines a stream writer hands over.
final class LineLog: @unchecked Sendable {
    // Guarded by `lock`.
    private var lines: [Data] = []
    private let lock = NSLock()
    func append(_ line: Data) { lock.withLock { lines.append(line) } }
    var all: [Data] { lock.withLock { lines } }
}
