// SHA-256 for the model checks and output names, by FFmpeg's libavutil, which the bridge links already: Mien
// needs one digest, and swift-crypto for it compiled a whole BoringSSL (359 C files) into every build.
#include "Guard.hpp"

extern "C" {
#include <libavutil/sha.h>
}

#include <cstdint>

extern "C" mien_status mien_sha256(const uint8_t *bytes, size_t length, uint8_t digest[32], char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(digest != nullptr && (bytes != nullptr || length == 0), "bytes or digest is NULL");
        // The context lives on the stack (av_sha_size is 112 bytes in FFmpeg 5.1), so nothing here can fail
        // for want of memory and the Swift side needs no error path for it.
        alignas(16) uint8_t storage[512];
        mien::require(av_sha_size <= static_cast<int>(sizeof storage), "FFmpeg's SHA context outgrew the buffer");
        auto *sha = reinterpret_cast<AVSHA *>(storage);
        if (av_sha_init(sha, 256) < 0) throw mien::BridgeError(MIEN_ERR_INTERNAL, "av_sha_init(256) failed");
        if (length > 0) av_sha_update(sha, bytes, length);
        av_sha_final(sha, digest);
        return MIEN_OK;
    });
}
