// Fuzz target: bytes of a video file -> mien_video_open_file and up to 12 frames read, as the video
// sources do (OpenCV's FFmpeg backend reads files, not memory, so each input goes to a file in /dev/shm).
#include "fuzz_common.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const std::string path = "/dev/shm/mien-fuzz-video-" + std::to_string(getpid()) + ".bin";
    FILE *file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) return 0;
    std::fwrite(data, 1, size, file);
    std::fclose(file);

    mien_video *video = nullptr;
    mien_video_info info{};
    char *error = nullptr;
    if (mien_video_open_file(path.c_str(), 4'000'000, 0, &video, &info, &error) != MIEN_OK) {
        forget(error);
        return 0;
    }
    // Frames larger than the sources accept are refused there too (see ImageLimits).
    const int64_t pixels = static_cast<int64_t>(info.width) * info.height;
    if (info.width > 0 && info.height > 0 && pixels <= 4'000'000) {
        std::vector<uint8_t> frame(static_cast<size_t>(pixels) * 3);
        for (int i = 0; i < 12; ++i) {
            double timestamp = 0;
            const mien_status status = mien_video_read(video, frame.data(), frame.size(), &timestamp, &error);
            forget(error);
            error = nullptr;
            if (status != MIEN_OK) break;
        }
    }
    mien_video_free(video);
    return 0;
}
