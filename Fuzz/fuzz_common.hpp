// Shared by the libFuzzer harnesses: they drive the bridge's C API exactly as the Swift side does, so a
// crash here is a crash a user's file could cause.
#pragma once

#include "CMienBridge.h"

#include <cstdlib>

/// Frees a bridge error message (the harnesses only care that the call returned).
inline void forget(char *message) { mien_string_free(message); }
