// A C file only because SwiftPM can pass a value to C (`-DNAME=value`) but only a flag to Swift; Package.swift
// defines MIEN_BUILD_COMMIT from the checkout's git information. Kept apart from the bridge so that a new
// commit recompiles this one file and the CLI, not every target that imports the bridge.
#include "CMienBuildInfo.h"

#ifndef MIEN_BUILD_COMMIT
#define MIEN_BUILD_COMMIT "unknown"
#endif

const char *mien_build_commit(void) { return MIEN_BUILD_COMMIT; }
