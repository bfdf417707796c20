import Foundation
import Mien
import MienTesting
import Testing

/// The catalog is the one definition of a metric: every `Detector` switch has one entry, the groups split the
/// metrics without overlap, and the files other surfaces read (the JSON schema, OpenAPI) agree with it.
@Suite("Metric catalog")
struct MetricCatalogTests {
    /// Every switch a `Detector` has, listed from the enums (not from the catalog), and the switch of each metric
    /// an entry measures itself (`Metric.measured`: defined by its entry alone).
    static let switches: [Metric] =
        FacialExpression.allCases.map(Metric.expression) + Emoji.allCases.map(Metric.emoji)
        + Emotion.allCases.map(Metric.emotion) + [.valence, .engagement, .gender, .age, .glasses, .gaze]
        + measuredSwitches(in: nil)

    /// The switches of the metrics their entry measures, in `group` (any when nil); each is `.measured(name)`.
    static func measuredSwitches(in group: MetricGroup?) -> [Metric] {
        MetricCatalog.measuredEntries.filter { group == nil || $0.group == group }.map { Metric.measured($0.name) }
    }

    @Test func everySwitch_hasExactlyOneEntry_andNamesAndColumnsAreUnique() {
        for metric in Self.switches {
            #expect(MetricCatalog.entries.filter { $0.metric == metric }.count == 1, "\(metric)")
        }
        let names = MetricCatalog.entries.map(\.name)
        #expect(Set(names).count == names.count)
        let columns = MetricCatalog.columns.map(\.name)
        #expect(Set(columns).count == columns.count)
        #expect(Set(ResultTable.header).count == ResultTable.header.count)
        #expect(Metric.expression(.smile).name == "expressions.smile" && Metric.emoji(.smirk).name == "emoji.smirk")
    }

    @Test func theGroups_splitEveryMetric_withoutOverlap() throws {
        var seen = Set<Metric>()
        for group in MetricGroup.allCases {
            #expect(seen.isDisjoint(with: group.metrics), "\(group) overlaps another group")
            seen.formUnion(group.metrics)
        }
        #expect(seen == Set(Self.switches))
        #expect(
            try MetricGroup.metrics(named: ["expressions"])
                == Set(FacialExpression.allCases.map(Metric.expression) + Self.measuredSwitches(in: .expressions)))
        #expect(try MetricGroup.metrics(named: ["emoji"]) == Set(Emoji.allCases.map(Metric.emoji)))
        #expect(try MetricGroup.metrics(named: ["none"]).isEmpty)
        #expect(try MetricGroup.metrics(named: []) == Set(Self.switches))
        #expect(throws: MienError.self) { try MetricGroup.metrics(named: ["expression"]) }
    }

    /// The CSV keeps its columns and their order: what scripts written against earlier files read.
    ///
    /// Metrics derived from the others (`MetricDescriptor.derive`) or measured by their own entry (`measure`) add
    /// their columns after their group's, and nothing else moves.
    @Test func theCSVHeader_isTheCatalogsColumns_inTheirOrder() {
        let derived = Set(
            (MetricCatalog.derivedEntries + MetricCatalog.measuredEntries).flatMap(\.columns).map(\.name))
        let measured: String = ResultTable.header.filter { !derived.contains($0) }.joined(separator: ",")
        #expect(
            measured
                == "TimeStamp,frame,faceId,x,y,width,height,interocularDistance,pitch,yaw,roll,brightness,flags,gender,"
                + "age,ageYears,glasses,gazeYaw,gazePitch,eyeYaw,eyePitch,anger,contempt,disgust,fear,joy,sadness,"
                + "surprise,neutral,valence,engagement,attention,browFurrow,browRaise,innerBrowRaise,eyeClosure,"
                + "noseWrinkle,upperLipRaise,lipSuck,lipPucker,lipPress,mouthOpen,lipCornerDepressor,chinRaise,smirk,"
                + "smile,cheekRaise,dimpler,eyeWiden,jawDrop,lidTighten,lipStretch,laughing,smiley,relaxed,wink,"
                + "kissing,kissingClosedEyes,stuckOutTongueWinkingEye,stuckOutTongue,stuckOutTongueClosedEyes,"
                + "flushed,disappointed,rage,scream,smirkEmoji,dominantEmoji,blinkRate,eyesClosed,talking,file")
    }

    /// Every field a metric writes is declared by the JSON schema, and every face property of the schema is
    /// either a metric's or one of the face's own (box, points, pose, quality, ...).
    @Test func theJSONSchema_declaresEveryMetricField_andNoMetricTheCatalogLacks() throws {
        let url = SampleMedia.repositoryRoot.appendingPathComponent("Schema/detector-result.schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        func resolved(_ node: [String: Any]) -> [String: Any] {
            guard let reference = node["$ref"] as? String, reference.hasPrefix("#/$defs/") else { return node }
            return definitions[String(reference.dropFirst("#/$defs/".count))] as? [String: Any] ?? [:]
        }
        let face = try #require(definitions["face"] as? [String: Any])
        for entry in MetricCatalog.entries {
            for field in entry.fields {
                var node: [String: Any]? = face
                for part in field.split(separator: ".") {
                    node = ((node.map(resolved)?["properties"]) as? [String: Any])?[String(part)] as? [String: Any]
                }
                #expect(node != nil, "\(entry.name): the schema has no \(field)")
            }
        }
        let faceOwn: Set = [
            "faceId", "faceBounds", "confidence", "facePoints", "keypoints", "mesh", "points68", "blendshapes",
            "orientation", "quality", "flags",
        ]
        let metricTops = Set(MetricCatalog.entries.flatMap(\.fields).map { String($0.split(separator: ".")[0]) })
        let properties = try #require(face["properties"] as? [String: Any])
        for name in properties.keys where !faceOwn.contains(name) {
            #expect(metricTops.contains(name), "the schema's face has \(name), which no catalog entry writes")
        }
    }

    /// OpenAPI's `metrics` parameter accepts exactly the group words.
    @Test func openAPIsMetricsPattern_namesExactlyTheGroupWords() throws {
        let url = SampleMedia.repositoryRoot.appendingPathComponent("Sources/MienService/Resources/openapi.yaml")
        let text = try String(contentsOf: url, encoding: .utf8)
        let match = try #require(text.firstMatch(of: /pattern: "\^\(\(([a-z|]+)\)/))
        #expect(Set(match.1.split(separator: "|").map(String.init)) == Set(MetricGroup.words))
    }

    /// Episodes follow the catalog's names (one scheme), and only metrics that have a score.
    @Test func episodeNames_areCatalogNames() {
        let blinks: Set = ["blink", "winkLeft", "winkRight"]
        for name in EpisodeSettings.metricNames where !blinks.contains(name) {
            let entry = MetricCatalog.entry(named: name)
            #expect(entry?.episodes == true, "\(name)")
        }
    }
}
