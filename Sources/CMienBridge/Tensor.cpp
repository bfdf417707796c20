// Input-tensor preparation for the networks: warp, colour, scale and layout on OpenCV. Inference itself runs
// on OpenVINO, in Swift (MienVision/Inference); this file only fills the float buffer the network reads.
#include "Guard.hpp"

#include <opencv2/imgproc.hpp>

#include <vector>

namespace {

/// Scratch images reused by each thread, so that a steady stream of same-sized inputs allocates nothing.
/// Thread-local because several networks prepare their inputs on different threads at once.
struct Scratch {
    cv::Mat crop;
    cv::Mat converted;
    cv::Mat floats;
};

Scratch &scratch() {
    thread_local Scratch value;
    return value;
}

} // namespace

extern "C" mien_status mien_tensor_from_image(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                                              const double tensor_from_image[6], const mien_tensor_spec *spec,
                                              float *tensor, size_t capacity, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(spec != nullptr && tensor != nullptr, "spec or tensor is NULL");
        mien::require(spec->width > 0 && spec->height > 0, "tensor size must be positive");
        mien::require(spec->channels == 1 || spec->channels == 3, "tensor channels must be 1 or 3");
        const size_t plane = static_cast<size_t>(spec->width) * static_cast<size_t>(spec->height);
        const size_t needed = plane * static_cast<size_t>(spec->channels);
        if (needed != capacity)
            throw mien::BridgeError(MIEN_ERR_INVALID_ARGUMENT, "the tensor holds " + std::to_string(capacity) +
                                                                   " floats, the spec makes " + std::to_string(needed));
        const cv::Mat image = mien::wrap_bgr(pixels, width, height, stride);
        Scratch &s = scratch();
        const cv::Size size(spec->width, spec->height);
        cv::warpAffine(image, s.crop, mien::affine(tensor_from_image), size, cv::INTER_LINEAR,
                       spec->replicate ? cv::BORDER_REPLICATE : cv::BORDER_CONSTANT, cv::Scalar::all(spec->border));
        const cv::Mat *source = &s.crop;
        if (spec->channels == 1) {
            cv::cvtColor(s.crop, s.converted, cv::COLOR_BGR2GRAY);
            source = &s.converted;
        } else if (spec->rgb) {
            cv::cvtColor(s.crop, s.converted, cv::COLOR_BGR2RGB);
            source = &s.converted;
        }
        if (spec->channels == 1 || spec->interleaved) {
            // One plane, or HWC: the converted image's own layout is the tensor's; write straight into it.
            cv::Mat out(spec->height, spec->width, CV_32FC(spec->channels), tensor);
            source->convertTo(out, CV_32F, spec->scale, spec->offset);
            mien::require(out.data == reinterpret_cast<uchar *>(tensor), "the tensor buffer was reallocated");
            return MIEN_OK;
        }
        // Interleaved HWC floats -> planar CHW, one plane per channel, written into the tensor.
        source->convertTo(s.floats, CV_32F, spec->scale, spec->offset);
        std::vector<cv::Mat> planes;
        for (int c = 0; c < spec->channels; ++c)
            planes.emplace_back(spec->height, spec->width, CV_32F, tensor + static_cast<size_t>(c) * plane);
        cv::split(s.floats, planes);
        return MIEN_OK;
    });
}
