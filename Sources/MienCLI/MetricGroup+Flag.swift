// Public imports: a conformance of the library's type to the parser's protocol is as visible as the type.
public import ArgumentParser
public import Mien

/// `mien detect`'s metric flags: one per group (`--expressions`, `--emoji`, ...), from the groups every surface
/// shares, so a group added to the catalog is a flag here too.
extension MetricGroup: EnumerableFlag {
    public static func help(for value: MetricGroup) -> ArgumentHelp? { "Also measure \(value.summary)." }
}
