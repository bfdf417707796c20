#include "LibraryLog.hpp"

#include <opencv2/core/utils/logger.hpp>

extern "C" {
#include <libavutil/log.h>
}

#include <cstdarg>
#include <mutex>

namespace mien {

namespace {

thread_local std::string last_error;

/// FFmpeg's log callback: error lines are kept for this thread's next bridge error, the rest dropped.
void keep_error_line(void *context, int level, const char *format, va_list arguments) {
    if (level > AV_LOG_ERROR) return;
    char line[512];
    int prefix = 1;
    av_log_format_line2(context, level, format, arguments, line, sizeof line, &prefix);
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (!text.empty()) last_error = text;
}

} // namespace

void quiet_libraries() {
    static std::once_flag once;
    std::call_once(once, [] {
        av_log_set_level(AV_LOG_ERROR);
        av_log_set_callback(keep_error_line);
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    });
}

std::string library_reason() {
    std::string reason;
    reason.swap(last_error);
    return reason;
}

std::string with_library_reason(const std::string &message) {
    std::string reason = library_reason();
    return reason.empty() ? message : message + " (FFmpeg: " + reason + ")";
}

} // namespace mien
