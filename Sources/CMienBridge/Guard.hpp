// Internal to the bridge: turns any C++ exception into a mien_status plus an owned message.
#pragma once

#include "CMienBridge.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include <opencv2/core.hpp>

namespace mien {

/// An error with a status, thrown inside the bridge and caught at its C boundary.
struct BridgeError : std::exception {
    mien_status status;
    std::string message;
    BridgeError(mien_status s, std::string m) : status(s), message(std::move(m)) {}
    const char *what() const noexcept override { return message.c_str(); }
};

inline void set_error(char **error_message, const std::string &text) {
    if (error_message == nullptr) return;
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy != nullptr) std::memcpy(copy, text.c_str(), text.size() + 1);
    *error_message = copy;
}

/// Runs `body` and maps every exception to a status. `body` returns a mien_status itself.
template <typename Body>
mien_status guarded(char **error_message, Body &&body) noexcept {
    if (error_message != nullptr) *error_message = nullptr;
    try {
        return body();
    } catch (const BridgeError &e) {
        set_error(error_message, e.message);
        return e.status;
    } catch (const cv::Exception &e) {
        set_error(error_message, std::string("OpenCV: ") + (e.err.empty() ? e.what() : e.err));
        return MIEN_ERR_INTERNAL;
    } catch (const std::bad_alloc &) {
        set_error(error_message, "out of memory");
        return MIEN_ERR_INTERNAL;
    } catch (const std::exception &e) {
        set_error(error_message, e.what());
        return MIEN_ERR_INTERNAL;
    } catch (...) {
        set_error(error_message, "unknown C++ exception");
        return MIEN_ERR_INTERNAL;
    }
}

inline void require(bool condition, const char *what) {
    if (!condition) throw BridgeError(MIEN_ERR_INVALID_ARGUMENT, what);
}

/// Wraps caller-owned BGR pixels without copying them.
inline cv::Mat wrap_bgr(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride) {
    require(pixels != nullptr, "pixels is NULL");
    require(width > 0 && height > 0, "image size must be positive");
    require(stride >= width * 3, "stride is smaller than width * 3");
    return cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
}

inline cv::Matx23d affine(const double m[6]) {
    require(m != nullptr, "affine matrix is NULL");
    return cv::Matx23d(m[0], m[1], m[2], m[3], m[4], m[5]);
}

} // namespace mien
