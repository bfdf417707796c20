#include "Guard.hpp"
#include "FileDecoder.hpp"

#include <opencv2/videoio.hpp>

#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>

struct mien_video {
    /// A file: decoded by FFmpeg's libraries directly (see FileDecoder for why not VideoCapture).
    std::unique_ptr<mien::FileDecoder> file;
    /// A camera: V4L2 through OpenCV.
    cv::VideoCapture capture;
};

struct mien_video_writer {
    cv::VideoWriter writer;
    cv::Size size;
};

namespace {

bool exists(const char *path) {
    struct stat info {};
    return ::stat(path, &info) == 0;
}

/// The FFmpeg demuxer for the container the file starts like, or nullptr when it is none Mien reads.
/// FFmpeg would also probe raw elementary streams and dozens of other formats; the video_open fuzzer found
/// a raw MPEG-4 stream that made OpenCV 4.6's FFmpeg backend copy past the end of its frame buffer (a
/// crash in `mien detect`), so only containers that cameras, phones and editors write get through, and
/// FFmpeg is told which one (its own probe may otherwise pick another demuxer for the same bytes).
const char *known_container(const char *path) {
    unsigned char b[384] = {};
    FILE *file = std::fopen(path, "rb");
    if (file == nullptr) return "";  // let FFmpeg report why it cannot read it
    const size_t n = std::fread(b, 1, sizeof b, file);
    std::fclose(file);
    auto at = [&](size_t offset, const char *text) {
        const size_t length = std::strlen(text);
        return n >= offset + length && std::memcmp(b + offset, text, length) == 0;
    };
    static const char *const boxes[] = {"ftyp", "moov", "mdat", "free", "wide", "skip", "pnot"};
    for (const char *box : boxes)
        if (at(4, box)) return "mov";                                     // MP4, MOV, 3GP, M4V
    if (n >= 4 && b[0] == 0x1A && b[1] == 0x45 && b[2] == 0xDF && b[3] == 0xA3) return "matroska";  // MKV, WebM
    if (at(0, "RIFF") && at(8, "AVI ")) return "avi";
    if (n >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 1 && b[3] == 0xBA) return "mpeg";  // MPEG program stream
    // MPEG transport stream: three 188-byte packets in step. One 0x47 byte was enough before, and the
    // fuzzer built a 126-byte "stream" of JPEG frames of changing sizes behind it that made OpenCV 4.6
    // copy past its frame buffer again (regression input kept); no real stream is that short.
    if (n >= 377 && b[0] == 0x47 && b[188] == 0x47 && b[376] == 0x47) return "mpegts";
    if (at(0, "FLV")) return "flv";
    if (at(0, "OggS")) return "ogg";
    if (at(0, "GIF8")) return "gif";
    static const unsigned char asf[] = {0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11};
    return n >= 8 && std::memcmp(b, asf, 8) == 0 ? "asf" : nullptr;  // ASF, WMV
}

void describe(const cv::VideoCapture &capture, mien_video_info *info) {
    if (info == nullptr) return;
    info->width = static_cast<int32_t>(capture.get(cv::CAP_PROP_FRAME_WIDTH));
    info->height = static_cast<int32_t>(capture.get(cv::CAP_PROP_FRAME_HEIGHT));
    info->fps = capture.get(cv::CAP_PROP_FPS);
    const double count = capture.get(cv::CAP_PROP_FRAME_COUNT);
    info->frame_count = count > 0 ? static_cast<int64_t>(count) : 0;
}

} // namespace

extern "C" mien_status mien_video_open_file(const char *path, int64_t max_pixels, int32_t decoder_threads,
                                            mien_video **out, mien_video_info *info, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(path != nullptr && out != nullptr, "path or out is NULL");
        mien::require(decoder_threads >= 0, "decoder_threads is negative");
        *out = nullptr;
        if (!exists(path)) throw mien::BridgeError(MIEN_ERR_NOT_FOUND, "no such file");
        const char *container = known_container(path);
        if (container == nullptr)
            throw mien::BridgeError(MIEN_ERR_OPEN, "not a video container Mien reads (MP4/MOV, MKV/WebM, AVI, MPEG-PS/TS, "
                                                   "FLV, Ogg, ASF, GIF; raw streams: remux with ffmpeg -c copy)");
        auto video = std::make_unique<mien_video>();
        video->file = std::make_unique<mien::FileDecoder>(path, container, max_pixels, decoder_threads);
        if (info != nullptr) {
            info->width = video->file->width();
            info->height = video->file->height();
            info->fps = video->file->fps();
            info->frame_count = video->file->frame_count();
        }
        *out = video.release();
        return MIEN_OK;
    });
}

extern "C" mien_status mien_video_open_camera(const char *device, int32_t width, int32_t height, double fps,
                                              mien_video **out, mien_video_info *info, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(device != nullptr && out != nullptr, "device or out is NULL");
        *out = nullptr;
        // Checking the node first keeps a missing camera an immediate error instead of a backend probe.
        if (!exists(device)) throw mien::BridgeError(MIEN_ERR_NOT_FOUND, "no such camera device");
        auto video = std::make_unique<mien_video>();
        if (!video->capture.open(device, cv::CAP_V4L2) || !video->capture.isOpened())
            throw mien::BridgeError(MIEN_ERR_OPEN, "V4L2 could not open the camera (busy, not a capture device, or no permission)");
        if (width > 0) video->capture.set(cv::CAP_PROP_FRAME_WIDTH, width);
        if (height > 0) video->capture.set(cv::CAP_PROP_FRAME_HEIGHT, height);
        if (fps > 0) video->capture.set(cv::CAP_PROP_FPS, fps);
        describe(video->capture, info);
        *out = video.release();
        return MIEN_OK;
    });
}

extern "C" mien_status mien_video_read(mien_video *video, uint8_t *pixels, size_t capacity, double *timestamp_ms,
                                       char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(video != nullptr && pixels != nullptr, "video or pixels is NULL");
        if (video->file) {
            if (!video->file->read(pixels, capacity, timestamp_ms)) throw mien::BridgeError(MIEN_ERR_END_OF_STREAM, "end of stream");
            return MIEN_OK;
        }
        if (!video->capture.grab()) throw mien::BridgeError(MIEN_ERR_END_OF_STREAM, "end of stream");
        if (timestamp_ms != nullptr) *timestamp_ms = video->capture.get(cv::CAP_PROP_POS_MSEC);
        const int width = static_cast<int>(video->capture.get(cv::CAP_PROP_FRAME_WIDTH));
        const int height = static_cast<int>(video->capture.get(cv::CAP_PROP_FRAME_HEIGHT));
        if (width <= 0 || height <= 0 || static_cast<size_t>(width) * height * 3 > capacity)
            throw mien::BridgeError(MIEN_ERR_DECODE, "frame size changed mid-stream");
        // A Mat header over the caller's buffer: retrieve() writes straight into it when the size and
        // type already match, so a frame costs one conversion and no allocation.
        cv::Mat target(height, width, CV_8UC3, pixels);
        if (!video->capture.retrieve(target)) throw mien::BridgeError(MIEN_ERR_DECODE, "the frame could not be decoded");
        if (target.data != pixels) {
            if (target.cols != width || target.rows != height || target.type() != CV_8UC3)
                throw mien::BridgeError(MIEN_ERR_DECODE, "the decoder returned a frame of another size or type");
            target.copyTo(cv::Mat(height, width, CV_8UC3, pixels));
        }
        return MIEN_OK;
    });
}

extern "C" mien_status mien_video_skip(mien_video *video, double *timestamp_ms, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(video != nullptr && video->file, "video is NULL or not a file");
        if (!video->file->read(nullptr, 0, timestamp_ms)) throw mien::BridgeError(MIEN_ERR_END_OF_STREAM, "end of stream");
        return MIEN_OK;
    });
}

extern "C" mien_status mien_video_seek(mien_video *video, double timestamp_ms, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(video != nullptr && video->file, "video is NULL or not a file");
        video->file->seek(timestamp_ms);
        return MIEN_OK;
    });
}

extern "C" void mien_video_free(mien_video *video) {
    try {
        delete video;
    } catch (...) {
        // A backend that throws while closing must not take the process down.
    }
}

extern "C" mien_status mien_video_writer_open(const char *path, const char *fourcc, double fps, int32_t width,
                                              int32_t height, mien_video_writer **out, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(path != nullptr && fourcc != nullptr && out != nullptr, "path, fourcc or out is NULL");
        mien::require(std::strlen(fourcc) == 4, "fourcc must have four characters");
        mien::require(fps > 0 && width > 0 && height > 0, "fps and size must be positive");
        *out = nullptr;
        auto writer = std::make_unique<mien_video_writer>();
        writer->size = cv::Size(width, height);
        const int code = cv::VideoWriter::fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]);
        if (!writer->writer.open(path, cv::CAP_FFMPEG, code, fps, writer->size, true) || !writer->writer.isOpened())
            throw mien::BridgeError(MIEN_ERR_IO, "could not open a video encoder for it");
        *out = writer.release();
        return MIEN_OK;
    });
}

extern "C" mien_status mien_video_writer_write(mien_video_writer *writer, const uint8_t *pixels, int32_t stride,
                                               char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(writer != nullptr, "writer is NULL");
        writer->writer.write(mien::wrap_bgr(pixels, writer->size.width, writer->size.height, stride));
        return MIEN_OK;
    });
}

extern "C" void mien_video_writer_free(mien_video_writer *writer) {
    try {
        delete writer;
    } catch (...) {
        // See mien_video_free.
    }
}
