// Internal to the bridge: video files decoded with FFmpeg's libraries directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

struct AVFormatContext;
struct AVCodecContext;
struct AVFrame;
struct AVPacket;
struct SwsContext;

namespace mien {

/// Reads a video file's frames as BGR pictures of one size, with their timestamps.
///
/// Why not `cv::VideoCapture`: OpenCV 4.6's FFmpeg backend converts each decoded frame into a buffer of the
/// decoder's coded size and then copies out the size the stream was probed at. A stream whose frames get
/// smaller than that (an MJPEG AVI whose JPEGs change size, a damaged MPEG-4 stream, a resolution change)
/// makes it read past the buffer inside `VideoCapture::retrieve`, before the caller sees a pixel; the
/// video_open fuzzer found that four ways. Here every frame is converted from its own size: a frame of
/// another size than the stream is scaled to the stream's size, so callers keep one frame size.
///
/// What OpenCV did and this keeps: the container's rotation (display matrix) is applied, timestamps are
/// relative to the stream's start, the frame count is the container's or duration x rate, packets that
/// do not decode are skipped (4096 in a row end the stream).
class FileDecoder {
  public:
    /// Opens `path` with FFmpeg's demuxer `container` ("avi", "mov", ...; empty: FFmpeg probes); throws
    /// `BridgeError` (MIEN_ERR_OPEN) when FFmpeg cannot read a video stream from it. Decoders refuse
    /// frames over `max_pixels` (0: FFmpeg's own limit). The decoder uses `threads` threads (0: FFmpeg's
    /// choice, one per core and one more).
    FileDecoder(const char *path, const char *container, int64_t max_pixels, int threads);
    ~FileDecoder();
    FileDecoder(const FileDecoder &) = delete;
    FileDecoder &operator=(const FileDecoder &) = delete;

    /// Width and height of the frames `read` returns, in pixels (after rotation).
    int width() const { return rotation_ % 2 == 1 ? height_ : width_; }
    int height() const { return rotation_ % 2 == 1 ? width_ : height_; }
    /// Frames per second (0 when unknown) and the number of frames announced (0 when unknown).
    double fps() const { return fps_; }
    int64_t frame_count() const { return frame_count_; }

    /// Decodes the next frame into `pixels` (BGR, `width() * 3` bytes per row); false at the end.
    bool read(uint8_t *pixels, size_t capacity, double *timestamp_ms);

    /// Moves to the key frame at or before `timestamp_ms` (stream time, as `read` reports it): the next `read`
    /// returns that key frame's first frame. Throws `BridgeError` (MIEN_ERR_DECODE) when the container cannot
    /// seek. Frames without a presentation time cannot be timed after a seek: `read` then throws.
    void seek(double timestamp_ms);

  private:
    void close() noexcept;
    bool next_frame();
    /// Whether `seek` moved the stream (frames are no longer counted from the first).
    bool seeked_ = false;
    void convert(uint8_t *pixels);

    AVFormatContext *format_ = nullptr;
    AVCodecContext *codec_ = nullptr;
    AVFrame *frame_ = nullptr;
    AVFrame *bgr_ = nullptr;
    AVPacket *packet_ = nullptr;
    SwsContext *scaler_ = nullptr;
    int stream_ = -1;
    int width_ = 0;
    int height_ = 0;
    int rotation_ = 0;  // clockwise quarter turns the picture needs, 0...3
    double fps_ = 0;
    int64_t frame_count_ = 0;
    int64_t frames_read_ = 0;
    bool draining_ = false;
    bool finished_ = false;
};

} // namespace mien
