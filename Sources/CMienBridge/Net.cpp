#include "Guard.hpp"

#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <string>
#include <vector>

struct mien_net {
    cv::dnn::Net net;
    std::vector<std::string> output_names;
    std::vector<cv::Mat> outputs;
    // Reused between calls so that a steady stream of same-sized inputs allocates nothing.
    cv::Mat crop;
    cv::Mat grey;
    cv::Mat floats;
    cv::Mat blob;
};

namespace {

mien_status copy_outputs(mien_net *net, float *const *outputs, const size_t *capacities, size_t *sizes) {
    mien::require(outputs != nullptr && capacities != nullptr && sizes != nullptr, "output buffers are NULL");
    for (size_t i = 0; i < net->outputs.size(); ++i) {
        const cv::Mat &out = net->outputs[i];
        if (out.depth() != CV_32F) throw mien::BridgeError(MIEN_ERR_MODEL, "output " + net->output_names[i] + " is not float");
        const size_t count = out.total() * static_cast<size_t>(out.channels());
        if (count > capacities[i])
            throw mien::BridgeError(MIEN_ERR_INVALID_ARGUMENT, "output " + net->output_names[i] + " has " + std::to_string(count) + " values, buffer holds " + std::to_string(capacities[i]));
        mien::require(outputs[i] != nullptr, "an output buffer is NULL");
        const cv::Mat continuous = out.isContinuous() ? out : out.clone();
        std::memcpy(outputs[i], continuous.ptr<float>(), count * sizeof(float));
        sizes[i] = count;
    }
    return MIEN_OK;
}

} // namespace

extern "C" mien_status mien_net_create(const uint8_t *onnx_bytes, size_t length, const char *const *output_names,
                                       int32_t output_count, mien_net **out, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(onnx_bytes != nullptr && length > 0 && out != nullptr, "model bytes or out missing");
        mien::require(output_names != nullptr && output_count > 0, "at least one output name is needed");
        *out = nullptr;
        auto net = std::make_unique<mien_net>();
        try {
            net->net = cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(onnx_bytes), length);
        } catch (const cv::Exception &e) {
            throw mien::BridgeError(MIEN_ERR_MODEL, std::string("OpenCV could not parse the ONNX model: ") + e.err);
        }
        if (net->net.empty()) throw mien::BridgeError(MIEN_ERR_MODEL, "the ONNX model has no layers");
        net->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        for (int32_t i = 0; i < output_count; ++i) {
            mien::require(output_names[i] != nullptr, "an output name is NULL");
            net->output_names.emplace_back(output_names[i]);
        }
        *out = net.release();
        return MIEN_OK;
    });
}

extern "C" mien_status mien_net_run_image(mien_net *net, const uint8_t *pixels, int32_t width, int32_t height,
                                          int32_t stride, const double tensor_from_image[6],
                                          const mien_tensor_spec *spec, float *const *outputs,
                                          const size_t *capacities, size_t *sizes, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(net != nullptr && spec != nullptr, "net or spec is NULL");
        mien::require(spec->width > 0 && spec->height > 0, "tensor size must be positive");
        mien::require(spec->channels == 1 || spec->channels == 3, "tensor channels must be 1 or 3");
        const cv::Mat image = mien::wrap_bgr(pixels, width, height, stride);
        const cv::Size size(spec->width, spec->height);
        cv::warpAffine(image, net->crop, mien::affine(tensor_from_image), size, cv::INTER_LINEAR,
                       spec->replicate ? cv::BORDER_REPLICATE : cv::BORDER_CONSTANT, cv::Scalar::all(spec->border));
        const cv::Mat *source = &net->crop;
        if (spec->channels == 1) {
            cv::cvtColor(net->crop, net->grey, cv::COLOR_BGR2GRAY);
            source = &net->grey;
        } else if (spec->rgb) {
            cv::cvtColor(net->crop, net->grey, cv::COLOR_BGR2RGB);
            source = &net->grey;
        }
        source->convertTo(net->floats, CV_32F, spec->scale, spec->offset);
        // Interleaved HWC floats -> planar NCHW blob, one plane per channel.
        const int dims[4] = {1, spec->channels, spec->height, spec->width};
        net->blob.create(4, dims, CV_32F);
        std::vector<cv::Mat> planes;
        for (int c = 0; c < spec->channels; ++c)
            planes.emplace_back(spec->height, spec->width, CV_32F, net->blob.ptr<float>(0, c));
        cv::split(net->floats, planes);
        net->net.setInput(net->blob);
        net->net.forward(net->outputs, net->output_names);
        return copy_outputs(net, outputs, capacities, sizes);
    });
}

extern "C" mien_status mien_net_run_tensor(mien_net *net, const float *input, const int32_t *shape, int32_t dims,
                                           float *const *outputs, const size_t *capacities, size_t *sizes,
                                           char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(net != nullptr && input != nullptr && shape != nullptr, "net, input or shape is NULL");
        mien::require(dims > 0 && dims <= 6, "tensor rank must be 1..6");
        std::vector<int> sizes_int(shape, shape + dims);
        for (int s : sizes_int) mien::require(s > 0, "tensor dimensions must be positive");
        const cv::Mat tensor(dims, sizes_int.data(), CV_32F, const_cast<float *>(input));
        net->net.setInput(tensor);
        net->net.forward(net->outputs, net->output_names);
        return copy_outputs(net, outputs, capacities, sizes);
    });
}

extern "C" void mien_net_free(mien_net *net) { delete net; }
