// Internal to the bridge: video files encoded with FFmpeg's libraries directly.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <string>

struct AVFormatContext;
struct AVCodecContext;
struct AVFrame;
struct AVPacket;

namespace mien {

/// Writes BGR pictures as an H.264 video (libx264 when FFmpeg has it, else OpenH264, else MPEG-4 Part 2) in the
/// container the file name asks for (.mp4, .mov, .mkv).
///
/// Why not `cv::VideoWriter`: OpenCV 4.6 opens libx264 with its defaults (preset "medium", 40 frames of
/// look-ahead, frame threads) and passes no options through (OPENCV_FFMPEG_WRITER_OPTIONS is not read
/// by 4.6: measured, the files came out byte for byte the same). Annotating a 720p video that way cost
/// 28 ms of CPU and about 200 MB per video. Here the preset is the caller's and the look-ahead is off
/// (x264's "zerolatency" tune: no frames held back, no B-frames).
class FileEncoder {
  public:
    /// Opens `path` for `width` x `height` frames at `fps`; `preset` is x264's ("ultrafast" ... "medium"),
    /// `crf` its constant rate factor (0 lossless ... 51; 18 looks lossless, 23 is x264's default).
    /// Throws `BridgeError` (MIEN_ERR_IO) when the file or the encoder cannot be opened.
    FileEncoder(const char *path, double fps, int width, int height, const char *preset, int crf);
    ~FileEncoder();
    FileEncoder(const FileEncoder &) = delete;
    FileEncoder &operator=(const FileEncoder &) = delete;

    /// Encodes one BGR picture of the opened size (`stride` bytes per row).
    void write(const uint8_t *pixels, int stride);
    /// Flushes the encoder and completes the file; later calls do nothing.
    void finish();

  private:
    void close() noexcept;
    void drain();

    AVFormatContext *format_ = nullptr;
    AVCodecContext *codec_ = nullptr;
    AVFrame *frame_ = nullptr;
    AVPacket *packet_ = nullptr;
    /// The frame converted to planar YUV 4:2:0, reused between frames.
    cv::Mat yuv_;
    int width_ = 0;
    int height_ = 0;
    int64_t next_pts_ = 0;
    bool header_written_ = false;
    bool finished_ = false;
    std::string path_;
};

} // namespace mien
