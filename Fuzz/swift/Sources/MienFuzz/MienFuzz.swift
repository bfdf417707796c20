@_spi(Fuzzing) import MienStudies

// libFuzzer's entry: one input (Mien's `ParticipantMessageFuzz` reads it).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    ParticipantMessageFuzz.run(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafeRawPointer, Int) -> CInt
) -> CInt

// SwiftPM links an executable to start at `<target>_main`; libFuzzer's driver runs from here with the arguments.
@_cdecl("MienFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments, testOneInput)
}
