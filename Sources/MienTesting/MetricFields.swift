public import Mien

/// Checks a face's JSON against the metric catalog: the fields a set of metric groups writes, no more and no
/// fewer, whichever surface (CLI, service, live) produced it.
public enum MetricFields {
    /// A face's own fields, present whatever metrics are on (box, points, pose, quality, ...).
    public static let faceOwn: Set<String> = [
        "faceId", "faceBounds", "confidence", "facePoints", "keypoints", "mesh", "points68", "blendshapes",
        "orientation", "quality", "flags",
    ]

    /// The metric leaves of a face (a JSON object): nested objects flattened with dots; arrays and values
    /// are leaves.
    public static func leaves(ofFace face: [String: Any]) -> Set<String> {
        var found = Set<String>()
        func walk(_ value: Any, _ path: String) {
            if let object = value as? [String: Any], !object.isEmpty {
                for (key, inner) in object { walk(inner, path + "." + key) }
            } else {
                found.insert(path)
            }
        }
        for (key, value) in face where !faceOwn.contains(key) { walk(value, key) }
        return found
    }

    /// What differs between `face` and the catalog's fields for `groups`.
    ///
    /// A leaf no field of those groups covers, or a field with no leaf. Fields measured only in streams may be
    /// absent (and are allowed).
    public static func mismatches(face: [String: Any], groups: Set<MetricGroup>) -> [String] {
        let entries = MetricCatalog.entries.filter { groups.contains($0.group) }
        let required = entries.filter { !$0.onlyInStreams }.flatMap(\.fields)
        let allowed = entries.flatMap(\.fields)
        let leaves = leaves(ofFace: face)
        func covers(_ field: String, _ leaf: String) -> Bool { leaf == field || leaf.hasPrefix(field + ".") }
        var problems: [String] = []
        for leaf in leaves.sorted() where !allowed.contains(where: { covers($0, leaf) }) {
            problems.append("\(leaf) is not a field of \(groups.map(\.rawValue).sorted())")
        }
        for field in required where !leaves.contains(where: { covers(field, $0) }) {
            problems.append("\(field) is missing")
        }
        return problems
    }

    /// The groups a group word names (`all`: every group; `none`: none).
    public static func groups(named word: String) -> Set<MetricGroup> {
        switch word {
        case "all": Set(MetricGroup.allCases)
        case "none": []
        default: MetricGroup(rawValue: word).map { [$0] } ?? []
        }
    }
}
