internal import CMienBridge

/// Process-wide settings a program built on Mien may apply at start-up (the library never applies them
/// itself: they belong to the program).
package enum ProcessTuning {
    /// Caps the number of glibc malloc arenas at `count` (`mallopt(M_ARENA_MAX)`).
    ///
    /// Why: glibc gives threads their own arenas, up to 8 per core, and an arena keeps the memory freed
    /// into it. Every video Mien reads brings its own decoding and pipeline threads, so a process that
    /// reads several videos one after the other spreads its buffers over more and more arenas. Measured
    /// on the 2-core machine, three passes over the 4-face mosaic clip in one process: peak RSS 340.7 MB
    /// with glibc's default, 260.8 MB with 2 arenas, 240.3 MB with 1, at the same frames/s (29-31).
    /// - Parameter count: arenas, at least 1 (default 2: one per core of the machine Mien is tuned for).
    package static func limitMallocArenas(to count: Int = 2) {
        mien_limit_malloc_arenas(Int32(clamping: max(count, 1)))
    }

    /// Returns the heap's free memory to the system (glibc's `malloc_trim(0)`, over every arena).
    ///
    /// Why: freed memory stays in glibc's arenas, and a server whose sockets each held a detector run keeps what they
    /// used after they close. Measured (issue 94): 200 framing sockets took `mien serve` from 109 to 397 MB, 393 MB
    /// after they closed, 198 MB after this; and again 198 MB after each of two more rounds (no leak, retention).
    /// It walks the heap, so it is called seldom and off the cooperative pool (`MemoryRelease`).
    package static func releaseFreeMemory() {
        mien_release_free_memory()
    }
}
