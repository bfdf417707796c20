// Internal to the bridge: a pixel limit on the matrices OpenCV allocates while a decode runs.
#pragma once

#include "Guard.hpp"

#include <cstdint>
#include <mutex>
#include <string>

namespace mien {

/// The pixel limit of the decode running on this thread (0 = none), and the size it refused.
inline thread_local int64_t decode_pixel_limit = 0;
inline thread_local int64_t decode_refused_pixels = 0;

/// OpenCV's default matrix allocator, with a pixel limit while a decode runs on this thread (a picture in
/// `mien_image_decode`, a JPEG video frame in `mien_video_read`).
///
/// Why an allocator and not a header parser: a decoder allocates its output from what *it* reads in the
/// header, and a hand-written parser can disagree with it. libjpeg, for one, skips garbage between
/// markers and segments with a length under 2; a JPEG built that way (found by the image_decode fuzzer)
/// hid a 63527 x 16424 SOF from the Swift header probe, and OpenCV allocated 3.1 GB before the limit was
/// checked. Guarding the allocation itself holds for every format and every way of reaching the size.
/// Ownership does not change: the standard allocator allocates, records itself in the UMatData and so
/// frees the data too; this one only says no first.
class PixelLimitAllocator final : public cv::MatAllocator {
  public:
    explicit PixelLimitAllocator(cv::MatAllocator *base) : base_(base) {}

    cv::UMatData *allocate(int dims, const int *sizes, int type, void *data, size_t *step, cv::AccessFlag flags,
                           cv::UMatUsageFlags usage) const override {
        if (decode_pixel_limit > 0 && data == nullptr && dims >= 2) {
            int64_t pixels = 1;  // rows x columns (x planes); channels and depth are not pixels
            for (int i = 0; i < dims; ++i) pixels = sizes[i] > 0 && pixels > INT64_MAX / sizes[i] ? INT64_MAX : pixels * sizes[i];
            if (pixels > decode_pixel_limit) {
                decode_refused_pixels = pixels;
                throw mien::BridgeError(MIEN_ERR_TOO_LARGE, "image has " + std::to_string(pixels) +
                                                                " pixels, over the limit of " + std::to_string(decode_pixel_limit));
            }
        }
        return base_->allocate(dims, sizes, type, data, step, flags, usage);
    }
    bool allocate(cv::UMatData *data, cv::AccessFlag flags, cv::UMatUsageFlags usage) const override {
        return base_->allocate(data, flags, usage);
    }
    void deallocate(cv::UMatData *data) const override { base_->deallocate(data); }

  private:
    cv::MatAllocator *base_;
};

/// Sets the limit for one decode on this thread and clears it afterwards, also when decoding throws.
class DecodePixelLimit {
  public:
    explicit DecodePixelLimit(int64_t limit) {
        static std::once_flag installed;
        std::call_once(installed, [] {
            // Installed once and never freed: matrices made while it was the default may outlive any scope.
            static PixelLimitAllocator allocator(cv::Mat::getStdAllocator());
            cv::Mat::setDefaultAllocator(&allocator);
        });
        decode_pixel_limit = limit;
        decode_refused_pixels = 0;
    }
    ~DecodePixelLimit() { decode_pixel_limit = 0; }
    DecodePixelLimit(const DecodePixelLimit &) = delete;
    DecodePixelLimit &operator=(const DecodePixelLimit &) = delete;
};

} // namespace mien
