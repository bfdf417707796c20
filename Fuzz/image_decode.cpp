// Fuzz target: bytes of an image file -> mien_image_decode (with the library's pixel limit), then what the
// pipeline does next with a decoded picture: warp a crop to model size and encode a thumbnail.
#include "fuzz_common.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mien_image *image = nullptr;
    char *error = nullptr;
    // The library's default limit is 50 megapixels; the fuzzer uses 4 so one input cannot take seconds.
    if (mien_image_decode(data, size, 4'000'000, 0, &image, &error) != MIEN_OK) {
        forget(error);
        return 0;
    }
    int32_t width = 0, height = 0, stride = 0;
    mien_image_size(image, &width, &height, &stride);
    const uint8_t *pixels = mien_image_pixels(image);
    // A JPEG libjpeg-turbo decoded straight into BGR must be exactly what OpenCV makes of the same bytes.
    if (mien_image_decoded_directly(image)) {
        mien_image *reference = nullptr;
        if (mien_image_decode(data, size, 4'000'000, MIEN_DECODE_OPENCV, &reference, &error) != MIEN_OK) {
            forget(error);
            __builtin_trap();  // decoded directly, but OpenCV refuses it
        }
        int32_t w = 0, h = 0, s = 0;
        mien_image_size(reference, &w, &h, &s);
        const uint8_t *expected = mien_image_pixels(reference);
        if (w != width || h != height) __builtin_trap();
        for (int32_t row = 0; row < height; ++row)
            if (std::memcmp(pixels + static_cast<size_t>(row) * stride, expected + static_cast<size_t>(row) * s,
                            static_cast<size_t>(width) * 3) != 0)
                __builtin_trap();  // the two decoders disagree
        mien_image_free(reference);
    }
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
