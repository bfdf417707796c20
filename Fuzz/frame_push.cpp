// Fuzz target: a pushed frame of arbitrary size, stride and content, and arbitrary crop geometry, through
// the bridge calls a frame reaches in the pipeline: the detector's warp into its 128 x 128 tensor and
// inference (BlazeFace short range, loaded once from Models/), a crop warp, and drawing annotations.
//
// Input layout: width (2 bytes), height (2), stride padding (1), six transform coefficients (6 x 2 bytes,
// mapped to -4...4 and -2048...2048), then pixel bytes (repeated to fill the frame).
#include "fuzz_common.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
mien_net *detector = nullptr;

uint16_t read16(const uint8_t *&data, size_t &size) {
    uint16_t value = 0;
    for (int i = 0; i < 2 && size > 0; ++i, ++data, --size) value = static_cast<uint16_t>(value << 8 | *data);
    return value;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    const char *path = std::getenv("MIEN_FUZZ_MODEL");
    if (path == nullptr) path = "Models/face_detection_short_range.onnx";
    FILE *file = std::fopen(path, "rb");
    if (file == nullptr) {
        std::fprintf(stderr, "frame_push: cannot open %s (run from the repository root)\n", path);
        std::exit(2);
    }
    std::vector<uint8_t> bytes;
    uint8_t chunk[65536];
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, file)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
    std::fclose(file);
    const char *names[] = {"regressors", "classificators"};
    char *error = nullptr;
    if (mien_net_create(bytes.data(), bytes.size(), names, 2, &detector, &error) != MIEN_OK) {
        std::fprintf(stderr, "frame_push: %s\n", error ? error : "model failed");
        std::exit(2);
    }
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
    std::vector<float> regressors(896 * 16), scores(896);
    float *outputs[] = {regressors.data(), scores.data()};
    const size_t capacities[] = {regressors.size(), scores.size()};
    size_t sizes[2] = {0, 0};
    const mien_tensor_spec spec{128, 128, 3, 1, 1.0f / 127.5f, -1.0f, 0};
    if (mien_net_run_image(detector, pixels.data(), width, height, stride, transform, &spec, outputs, capacities,
                           sizes, &error) != MIEN_OK)
        forget(error);

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
