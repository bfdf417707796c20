#include "Guard.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <vector>

struct mien_image {
    cv::Mat mat; // CV_8UC3, BGR
};

extern "C" mien_status mien_image_decode(const uint8_t *bytes, size_t length, int64_t max_pixels,
                                         mien_image **out, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(out != nullptr, "out is NULL");
        *out = nullptr;
        if (bytes == nullptr || length == 0) throw mien::BridgeError(MIEN_ERR_DECODE, "the data is empty");
        const cv::Mat buffer(1, static_cast<int>(length), CV_8UC1, const_cast<uint8_t *>(bytes));
        // IMREAD_COLOR converts grey, 16-bit and alpha to 8-bit BGR and applies EXIF orientation.
        cv::Mat decoded = cv::imdecode(buffer, cv::IMREAD_COLOR);
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
