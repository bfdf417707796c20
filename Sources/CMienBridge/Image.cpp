#include "Guard.hpp"
#include "Jpeg.hpp"
#include "LibraryLog.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <vector>

struct mien_image {
    cv::Mat mat; // CV_8UC3, BGR
    bool direct = false; // decoded by libjpeg-turbo straight into BGR (Jpeg.cpp), not by cv::imdecode
};

namespace {

bool starts_with(const uint8_t *bytes, size_t length, std::initializer_list<uint8_t> prefix, size_t offset = 0) {
    if (length < offset + prefix.size()) return false;
    size_t i = offset;
    for (uint8_t expected : prefix)
        if (bytes[i++] != expected) return false;
    return true;
}

/// Whether the bytes start with the signature of a format Mien reads (the same list as the Swift side's
/// ImageHeader, less Radiance HDR). Everything else is refused before OpenCV sees it: OpenCV 4.6 hands unknown data to every
/// decoder it was built with, and Debian's build includes GDCM (DICOM), which aborts the process on a
/// malformed file with "DICM" at offset 128 (found by the image_decode fuzzer; regression input kept).
bool known_image_signature(const uint8_t *b, size_t n) {
    if (starts_with(b, n, {'D', 'I', 'C', 'M'}, 128)) return false;
    return starts_with(b, n, {0xFF, 0xD8, 0xFF}) ||                                   // JPEG
           starts_with(b, n, {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}) ||       // PNG
           starts_with(b, n, {'B', 'M'}) ||                                          // BMP
           (starts_with(b, n, {'R', 'I', 'F', 'F'}) && starts_with(b, n, {'W', 'E', 'B', 'P'}, 8)) ||
           starts_with(b, n, {'I', 'I', 0x2A, 0x00}) || starts_with(b, n, {'M', 'M', 0x00, 0x2A}) ||  // TIFF
           (n >= 2 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7') ||                  // PNM, PAM
           (n >= 2 && b[0] == 'P' && (b[1] == 'F' || b[1] == 'f')) ||                // PFM
           starts_with(b, n, {0x00, 0x00, 0x00, 0x0C, 'j', 'P', ' ', ' '}) ||        // JPEG 2000 (JP2)
           starts_with(b, n, {0xFF, 0x4F, 0xFF, 0x51}) ||                            // JPEG 2000 codestream
           starts_with(b, n, {0x76, 0x2F, 0x31, 0x01}) ||                            // OpenEXR
           starts_with(b, n, {0x59, 0xA6, 0x6A, 0x95});                              // Sun raster
    // Not Radiance HDR ("#?RADIANCE", "#?RGBE"): OpenCV 4.6's HDR decoder reads through a temporary file
    // and leaves it open when the data is damaged, one descriptor per picture, until the process runs out
    // (found by the image_decode fuzzer: "Too many open files" after 10 million inputs).
}

/// The pixel limit of the decode running on this thread (0 = none), and the size it refused.
thread_local int64_t decode_pixel_limit = 0;
thread_local int64_t decode_refused_pixels = 0;

/// OpenCV's default matrix allocator, with a pixel limit while `mien_image_decode` runs on this thread.
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

} // namespace

extern "C" mien_status mien_image_decode(const uint8_t *bytes, size_t length, int64_t max_pixels, int32_t flags,
                                         mien_image **out, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(out != nullptr, "out is NULL");
        *out = nullptr;
        if (bytes == nullptr || length == 0) throw mien::BridgeError(MIEN_ERR_DECODE, "the data is empty");
        if (!known_image_signature(bytes, length))
            throw mien::BridgeError(MIEN_ERR_DECODE, "not a picture format Mien reads (unknown or unsupported signature)");
        mien::quiet_libraries();
        cv::Mat decoded;
        if ((flags & MIEN_DECODE_OPENCV) == 0 && mien::decode_jpeg_bgr(bytes, length, max_pixels, decoded)) {
            *out = new mien_image{std::move(decoded), true};
            return MIEN_OK;
        }
        const cv::Mat buffer(1, static_cast<int>(length), CV_8UC1, const_cast<uint8_t *>(bytes));
        {
            const DecodePixelLimit limit(max_pixels);
            // IMREAD_COLOR converts grey, 16-bit and alpha to 8-bit BGR and applies EXIF orientation.
            decoded = cv::imdecode(buffer, cv::IMREAD_COLOR);
        }
        // A refusal inside a decoder's readData is swallowed by imdecode (it catches everything there and
        // returns an empty matrix), so it is reported from what the allocator recorded.
        if (decode_refused_pixels > 0)
            throw mien::BridgeError(MIEN_ERR_TOO_LARGE, "image has " + std::to_string(decode_refused_pixels) +
                                                            " pixels, over the limit of " + std::to_string(max_pixels));
        if (decoded.empty()) throw mien::BridgeError(MIEN_ERR_DECODE, "no decoder recognised the data (corrupt, truncated or not an image)");
        const int64_t pixels = static_cast<int64_t>(decoded.cols) * decoded.rows;
        if (max_pixels > 0 && pixels > max_pixels)
            throw mien::BridgeError(MIEN_ERR_TOO_LARGE, "image has " + std::to_string(pixels) + " pixels, over the limit of " + std::to_string(max_pixels));
        if (!decoded.isContinuous()) decoded = decoded.clone();
        *out = new mien_image{std::move(decoded)};
        return MIEN_OK;
    });
}

extern "C" void mien_image_size(const mien_image *image, int32_t *width, int32_t *height, int32_t *stride) {
    if (image == nullptr) return;
    if (width) *width = image->mat.cols;
    if (height) *height = image->mat.rows;
    if (stride) *stride = static_cast<int32_t>(image->mat.step[0]);
}

extern "C" int32_t mien_image_decoded_directly(const mien_image *image) {
    return image != nullptr && image->direct ? 1 : 0;
}

extern "C" const uint8_t *mien_image_pixels(const mien_image *image) {
    return image == nullptr ? nullptr : image->mat.data;
}

extern "C" void mien_image_free(mien_image *image) { delete image; }

extern "C" mien_status mien_image_write(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                                        int32_t stride, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(path != nullptr, "path is NULL");
        const cv::Mat mat = mien::wrap_bgr(pixels, width, height, stride);
        if (!cv::imwrite(path, mat)) throw mien::BridgeError(MIEN_ERR_IO, "could not encode or write the image");
        return MIEN_OK;
    });
}

struct mien_buffer {
    std::vector<uint8_t> bytes;
};

extern "C" mien_status mien_image_encode(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                                         const char *extension, int32_t quality, mien_buffer **out,
                                         char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(out != nullptr && extension != nullptr, "out or extension is NULL");
        *out = nullptr;
        const cv::Mat mat = mien::wrap_bgr(pixels, width, height, stride);
        std::vector<int> parameters;
        if (quality > 0) parameters = {cv::IMWRITE_JPEG_QUALITY, quality, cv::IMWRITE_WEBP_QUALITY, quality};
        auto buffer = std::make_unique<mien_buffer>();
        if (!cv::imencode(extension, mat, buffer->bytes, parameters))
            throw mien::BridgeError(MIEN_ERR_IO, std::string("could not encode the image as ") + extension);
        *out = buffer.release();
        return MIEN_OK;
    });
}

extern "C" const uint8_t *mien_buffer_data(const mien_buffer *buffer) {
    return buffer == nullptr ? nullptr : buffer->bytes.data();
}

extern "C" size_t mien_buffer_size(const mien_buffer *buffer) { return buffer == nullptr ? 0 : buffer->bytes.size(); }

extern "C" void mien_buffer_free(mien_buffer *buffer) { delete buffer; }

extern "C" mien_status mien_image_warp_affine(const uint8_t *src, int32_t src_width, int32_t src_height,
                                              int32_t src_stride, const double dst_from_src[6], uint8_t *dst,
                                              int32_t dst_width, int32_t dst_height, uint8_t border,
                                              char **error_message) {
    return mien::guarded(error_message, [&] {
        const cv::Mat source = mien::wrap_bgr(src, src_width, src_height, src_stride);
        cv::Mat target = mien::wrap_bgr(dst, dst_width, dst_height, dst_width * 3);
        cv::warpAffine(source, target, mien::affine(dst_from_src), target.size(), cv::INTER_LINEAR,
                       cv::BORDER_CONSTANT, cv::Scalar::all(border));
        return MIEN_OK;
    });
}

extern "C" mien_status mien_image_draw(uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                                       const mien_shape *shapes, int32_t count, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(count == 0 || shapes != nullptr, "shapes is NULL");
        cv::Mat target = mien::wrap_bgr(pixels, width, height, stride);
        for (int32_t i = 0; i < count; ++i) {
            const mien_shape &s = shapes[i];
            const cv::Scalar colour(s.blue, s.green, s.red);
            const cv::Point a(cvRound(s.x0), cvRound(s.y0));
            const cv::Point b(cvRound(s.x1), cvRound(s.y1));
            const int thickness = s.thickness < 0 ? cv::FILLED : std::max(1, s.thickness);
            switch (s.kind) {
            case MIEN_SHAPE_RECTANGLE: cv::rectangle(target, a, b, colour, thickness, cv::LINE_AA); break;
            case MIEN_SHAPE_LINE: cv::line(target, a, b, colour, std::max(1, s.thickness), cv::LINE_AA); break;
            case MIEN_SHAPE_CIRCLE: cv::circle(target, a, std::max(1, cvRound(s.x1)), colour, thickness, cv::LINE_AA); break;
            case MIEN_SHAPE_TEXT:
                mien::require(s.text != nullptr, "text shape without text");
                cv::putText(target, s.text, a, cv::FONT_HERSHEY_SIMPLEX, s.x1, colour, std::max(1, s.thickness), cv::LINE_AA);
                break;
            default: throw mien::BridgeError(MIEN_ERR_INVALID_ARGUMENT, "unknown shape kind " + std::to_string(s.kind));
            }
        }
        return MIEN_OK;
    });
}
