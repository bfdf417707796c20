// Fuzz target: a pushed frame of arbitrary size, stride and content, and arbitrary crop geometry, through
// the calls a frame reaches in the pipeline: the detector's warp into its 128 x 128 tensor (the bridge),
// inference on it (BlazeFace short range on OpenVINO's C API, loaded once from Models/, uninstrumented, as
// MienVision runs it), a crop warp, and drawing annotations.
//
// Input layout: width (2 bytes), height (2), stride padding (1), six transform coefficients (6 x 2 bytes,
// mapped to -4...4 and -2048...2048), then pixel bytes (repeated to fill the frame).
#include "fuzz_common.hpp"

#include <openvino/c/openvino.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
ov_core_t *core = nullptr;
ov_compiled_model_t *detector = nullptr;
ov_infer_request_t *request = nullptr;
float *tensor = nullptr; // the request's input, 1 x 128 x 128 x 3
size_t tensor_size = 0;

void check(ov_status_e status, const char *what) {
    if (status != OK) {
        const char *message = ov_get_last_err_msg();
        std::fprintf(stderr, "frame_push: %s failed: %s\n", what, message != nullptr ? message : "");
        ov_free(message);
        std::exit(2);
    }
}

uint16_t read16(const uint8_t *&data, size_t &size) {
    uint16_t value = 0;
    for (int i = 0; i < 2 && size > 0; ++i, ++data, --size) value = static_cast<uint16_t>(value << 8 | *data);
    return value;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    const char *path = std::getenv("MIEN_FUZZ_MODEL");
    if (path == nullptr) path = "Models/face_detection_short_range.tflite";
    ov_property_t properties[] = {{"INFERENCE_NUM_THREADS", "1"}, {"INFERENCE_PRECISION_HINT", "f32"}};
    check(ov_core_create(&core), "ov_core_create");
    check(ov_core_compile_model_from_file_props(core, path, "CPU", 2, properties, &detector), path);
    check(ov_compiled_model_create_infer_request(detector, &request), "create request");
    ov_tensor_t *input = nullptr;
    check(ov_infer_request_get_input_tensor_by_index(request, 0, &input), "input tensor");
    void *data = nullptr;
    check(ov_tensor_data(input, &data), "input data");
    check(ov_tensor_get_size(input, &tensor_size), "input size");
    tensor = static_cast<float *>(data); // owned by the request, which lives as long as the process
    ov_tensor_free(input);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const int32_t width = read16(data, size) % 641;  // 0 is allowed: the bridge must refuse it cleanly
    const int32_t height = read16(data, size) % 641;
    const int32_t pad = size > 0 ? (*data++ % 8) : 0;
    if (size > 0) --size;
    double transform[6];
    for (int i = 0; i < 6; ++i) {
        const double unit = (static_cast<double>(read16(data, size)) - 32768.0) / 32768.0;
        transform[i] = (i == 2 || i == 5) ? unit * 2048 : unit * 4;
    }
    const int32_t stride = width * 3 + pad;
    std::vector<uint8_t> pixels(static_cast<size_t>(stride) * static_cast<size_t>(height) + 1);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = size > 0 ? data[i % size] : static_cast<uint8_t>(i);

    char *error = nullptr;
    const mien_tensor_spec spec{128, 128, 3, 1, 1.0f / 127.5f, -1.0f, 0, 0, 1}; // NHWC, as the TFLite model

    if (mien_tensor_from_image(pixels.data(), width, height, stride, transform, &spec, tensor, tensor_size, &error) ==
        MIEN_OK) {
        check(ov_infer_request_infer(request), "infer");
    } else {
        forget(error);
    }

    std::vector<uint8_t> crop(96 * 96 * 3);
    if (mien_image_warp_affine(pixels.data(), width, height, stride, transform, crop.data(), 96, 96, 128, &error) !=
        MIEN_OK)
        forget(error);

    mien_shape shapes[4] = {};
    for (int i = 0; i < 4; ++i) {
        shapes[i].kind = i;
        shapes[i].x0 = transform[(i + 2) % 6] * 4;
        shapes[i].y0 = transform[(i + 5) % 6] * 4;
        shapes[i].x1 = transform[(i + 1) % 6] * 100;
        shapes[i].y1 = transform[(i + 4) % 6] * 100;
        shapes[i].thickness = static_cast<int32_t>(transform[i] * 8);
        shapes[i].text = "id 0";
    }
    if (mien_image_draw(pixels.data(), width, height, stride, shapes, 4, &error) != MIEN_OK) forget(error);
    return 0;
}
