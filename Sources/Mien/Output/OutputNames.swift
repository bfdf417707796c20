import Foundation

/// The name each input's output files take in an output folder (`<name>.jsonl`, `<name>.csv`,
/// `<name>.summary.json`): the input's last path component, so `talks/day1.mp4` writes `day1.mp4.jsonl`.
///
/// Inputs from different folders can share that component (`a/clip.mp4`, `b/clip.mp4`); each of them then
/// gets the first 8 hex digits of its path's SHA-256 added (`clip.mp4-1f2e3d4c`), so no input's files
/// overwrite another's. The names depend only on the whole list, so every shard of it agrees on them.
package struct OutputNames: Sendable {
    private let names: [String: String]

    /// Names the outputs of `inputs` (the whole list, before any sharding).
    package init(_ inputs: [String]) {
        var byBase: [String: Set<String>] = [:]
        for input in inputs { byBase[Self.base(of: input), default: []].insert(input) }
        var names: [String: String] = [:]
        for (base, paths) in byBase {
            for path in paths {
                names[path] =
                    paths.count == 1 ? base : base + "-" + ModelStore.sha256(Data(path.utf8)).prefix(8)
            }
        }
        self.names = names
    }

    /// The output name of `input` (its plain base name when it was not in the list).
    package subscript(input: String) -> String { names[input] ?? Self.base(of: input) }

    /// The input's last path component, with `:` (a camera's `camera:0`) replaced by `-`.
    package static func base(of input: String) -> String {
        URL(fileURLWithPath: input).lastPathComponent.replacingOccurrences(of: ":", with: "-")
    }
}
