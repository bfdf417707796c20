// Internal to the bridge: JPEG decoding straight into BGR (Jpeg.cpp says when it is used, and why).
#pragma once

#include <opencv2/core.hpp>

#include <cstddef>
#include <cstdint>

namespace mien {

/// Decodes a JPEG of YCbCr or grey with libjpeg-turbo into 8-bit BGR, the pixels cv::imdecode(IMREAD_COLOR) gives.
/// Returns false, with `out` empty, for everything it leaves to OpenCV: not a JPEG, EXIF (orientation), CMYK or
/// YCCK, more than `max_pixels` (0: no limit), and any data libjpeg warns about or cannot decode.
bool decode_jpeg_bgr(const uint8_t *bytes, size_t length, int64_t max_pixels, cv::Mat &out);

} // namespace mien
