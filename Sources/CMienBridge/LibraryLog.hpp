// Internal to the bridge: FFmpeg's and OpenCV's own log lines.
#pragma once

#include <string>

namespace mien {

/// Keeps FFmpeg's and OpenCV's log lines off stderr (once per process): Mien reports every failure itself,
/// in its own `mien: error: <input>: ...` form, so a raw "moov atom not found" or "[mjpeg] overread" line
/// beside it only confuses. FFmpeg's error lines are kept per thread instead (`library_reason`).
void quiet_libraries();

/// The last error line FFmpeg logged on this thread since the previous call (empty when none), to give as
/// the reason of the bridge's own message.
std::string library_reason();

/// `message`, followed by FFmpeg's last error line on this thread when there is one.
std::string with_library_reason(const std::string &message);

} // namespace mien
