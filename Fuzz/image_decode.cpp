// Fuzz target: bytes of an image file -> mien_image_decode (with the library's pixel limit), then what the
// pipeline does next with a decoded picture: warp a crop to model size and encode a thumbnail.
#include "fuzz_common.hpp"

#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mien_image *image = nullptr;
    char *error = nullptr;
    // The library's default limit is 50 megapixels; the fuzzer uses 4 so one input cannot take seconds.
    if (mien_image_decode(data, size, 4'000'000, &image, &error) != MIEN_OK) {
        forget(error);
        return 0;
    }
    int32_t width = 0, height = 0, stride = 0;
    mien_image_size(image, &width, &height, &stride);
    const uint8_t *pixels = mien_image_pixels(image);
    std::vector<uint8_t> crop(64 * 64 * 3);
    const double scale = 64.0 / (width > height ? width : height);
    const double transform[6] = {scale, 0, 0, 0, scale, 0};
    if (mien_image_warp_affine(pixels, width, height, stride, transform, crop.data(), 64, 64, 0, &error) != MIEN_OK)
        forget(error);
    mien_buffer *encoded = nullptr;
    if (mien_image_encode(crop.data(), 64, 64, 64 * 3, ".jpg", 80, &encoded, &error) == MIEN_OK)
        mien_buffer_free(encoded);
    else
        forget(error);
    mien_image_free(image);
    return 0;
}
