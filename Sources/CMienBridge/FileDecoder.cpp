#include "FileDecoder.hpp"

#include "Guard.hpp"
#include "LibraryLog.hpp"

#include <opencv2/core.hpp>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

#include <cmath>
#include <cstring>
#include <mutex>

namespace mien {

namespace {

/// Packets in a row that may fail to give a frame before the stream counts as ended (OpenCV's figure):
/// a damaged file ends instead of spinning, a file with a few bad packets keeps its good frames.
constexpr int kMaxFailedPacketsInARow = 4096;

/// More frames than any real video has (a year at 1000 frames/s is 3.2e10): a larger count announced by
/// a container is treated as unknown.
constexpr double kMaxAnnouncedFrames = 1e12;

/// Rows of the BGR conversion buffer are aligned like OpenCV's, because some swscale paths write whole
/// SIMD blocks past the last pixel of a row.
constexpr int kRowAlignment = 32;
/// Frames this many pixels wide or a multiple of it are converted straight into the caller's buffer:
/// swscale's SIMD converters work in blocks of at most 32 pixels, so none runs past the end of such a row.
constexpr int kDirectWidthMultiple = 32;
/// Alignment of the caller's buffer below which swscale falls back to unvectorised code (its rows, 3 x a
/// multiple of 32 bytes, are then aligned too).
constexpr uintptr_t kDirectAlignment = 16;

double seconds(AVRational value) { return value.den == 0 ? 0 : av_q2d(value); }

} // namespace

FileDecoder::FileDecoder(const char *path, const char *container, int64_t max_pixels, int threads) {
    // FFmpeg logs to stderr by default (a line per damaged packet); its error lines become reasons instead.
    quiet_libraries();
    library_reason();
    // A constructor that throws gets no destructor call, so a partly opened decoder is closed here; each
    // resource's pointer is stored before anything that can throw.
    struct Cleanup {
        FileDecoder *decoder;
        bool armed = true;
        ~Cleanup() {
            if (armed) decoder->close();
        }
    } cleanup{this};

    const AVInputFormat *demuxer = container != nullptr && *container != 0 ? av_find_input_format(container) : nullptr;
    if (avformat_open_input(&format_, path, demuxer, nullptr) < 0)
        throw BridgeError(
            MIEN_ERR_OPEN, with_library_reason("FFmpeg could not open it as a video (corrupt, truncated or not a video)"));
    if (avformat_find_stream_info(format_, nullptr) < 0)
        throw BridgeError(MIEN_ERR_OPEN, with_library_reason("FFmpeg could not read the streams (corrupt or truncated)"));
    const AVCodec *decoder = nullptr;
    stream_ = av_find_best_stream(format_, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (stream_ < 0 || decoder == nullptr)
        throw BridgeError(MIEN_ERR_OPEN, stream_ == AVERROR_DECODER_NOT_FOUND ? "no decoder for its video codec"
                                                                                  : "it holds no video stream");
    AVStream *stream = format_->streams[stream_];
    codec_ = avcodec_alloc_context3(decoder);
    if (codec_ == nullptr) throw std::bad_alloc();
    if (avcodec_parameters_to_context(codec_, stream->codecpar) < 0)
        throw BridgeError(MIEN_ERR_OPEN, "FFmpeg could not set up the video decoder");
    codec_->thread_count = threads;
    if (max_pixels > 0) codec_->max_pixels = max_pixels;
    if (avcodec_open2(codec_, decoder, nullptr) < 0) throw BridgeError(MIEN_ERR_OPEN, "FFmpeg could not open the video decoder");
    width_ = stream->codecpar->width;
    height_ = stream->codecpar->height;
    if (width_ <= 0 || height_ <= 0) throw BridgeError(MIEN_ERR_OPEN, "the video reports no frame size");
    if (max_pixels > 0 && static_cast<int64_t>(width_) * height_ > max_pixels)
        throw BridgeError(MIEN_ERR_TOO_LARGE, "frames of " + std::to_string(width_) + " x " + std::to_string(height_) +
                                                  " pixels, over the limit of " + std::to_string(max_pixels));

    fps_ = seconds(av_guess_frame_rate(format_, stream, nullptr));
    frame_count_ = stream->nb_frames;
    if (frame_count_ <= 0) {
        double duration = format_->duration > 0 ? static_cast<double>(format_->duration) / AV_TIME_BASE : 0;
        if (duration <= 0 && stream->duration > 0) duration = static_cast<double>(stream->duration) * seconds(stream->time_base);
        // A damaged container can announce any duration and rate (the video_open fuzzer found 1.8e21
        // frames): beyond what an int64 holds, or any real video, the count is unknown rather than
        // undefined behaviour.
        const double frames = duration * fps_;
        frame_count_ = duration > 0 && fps_ > 0 && std::isfinite(frames) && frames < kMaxAnnouncedFrames
                           ? static_cast<int64_t>(std::floor(frames + 0.5))
                           : 0;
    }
    // The display matrix holds the counter-clockwise rotation a player applies; phones record portrait
    // video as rotated landscape frames.
    if (const uint8_t *matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nullptr)) {
        const double degrees = av_display_rotation_get(reinterpret_cast<const int32_t *>(matrix));
        if (std::isfinite(degrees)) rotation_ = ((-static_cast<int>(std::lround(degrees / 90)) % 4) + 4) % 4;
    }

    frame_ = av_frame_alloc();
    bgr_ = av_frame_alloc();
    packet_ = av_packet_alloc();
    if (frame_ == nullptr || bgr_ == nullptr || packet_ == nullptr) throw std::bad_alloc();
    bgr_->format = AV_PIX_FMT_BGR24;
    bgr_->width = width_;
    bgr_->height = height_;
    if (av_frame_get_buffer(bgr_, kRowAlignment) < 0) throw std::bad_alloc();
    cleanup.armed = false;
}

FileDecoder::~FileDecoder() { close(); }

void FileDecoder::close() noexcept {
    sws_freeContext(scaler_);
    scaler_ = nullptr;
    av_packet_free(&packet_);
    av_frame_free(&bgr_);
    av_frame_free(&frame_);
    avcodec_free_context(&codec_);
    avformat_close_input(&format_);
}

bool FileDecoder::next_frame() {
    int failed = 0;
    while (!finished_) {
        const int received = avcodec_receive_frame(codec_, frame_);
        if (received == 0) return true;
        if (received == AVERROR_EOF) {
            finished_ = true;
            break;
        }
        if (received != AVERROR(EAGAIN) && ++failed > kMaxFailedPacketsInARow) break;
        if (draining_) {
            finished_ = true;
            break;
        }
        const int status = av_read_frame(format_, packet_);
        if (status < 0) {
            // End of file (or an unreadable tail): flush the frames the decoder still holds.
            draining_ = true;
            avcodec_send_packet(codec_, nullptr);
            continue;
        }
        if (packet_->stream_index == stream_) {
            // A packet that does not decode is skipped, as players do; the next key frame resumes.
            if (avcodec_send_packet(codec_, packet_) < 0 && ++failed > kMaxFailedPacketsInARow) {
                av_packet_unref(packet_);
                break;
            }
        }
        av_packet_unref(packet_);
    }
    return false;
}

void FileDecoder::convert(uint8_t *pixels) {
    if (frame_->width <= 0 || frame_->height <= 0 || frame_->data[0] == nullptr)
        throw BridgeError(MIEN_ERR_DECODE, "the decoder returned an empty frame");
    // The frame's own size and format are the source, whatever the stream announced: this is what keeps a
    // frame of another size from being read out of bounds.
    scaler_ = sws_getCachedContext(scaler_, frame_->width, frame_->height, static_cast<AVPixelFormat>(frame_->format),
                                   width_, height_, AV_PIX_FMT_BGR24, SWS_BICUBIC, nullptr, nullptr, nullptr);
    if (scaler_ == nullptr) throw BridgeError(MIEN_ERR_DECODE, "FFmpeg cannot convert this frame's pixel format");
    // Straight into the caller's buffer when nothing needs the intermediate one: no rotation, the frame at
    // the stream's size (so swscale only converts), rows a whole number of SIMD blocks (no block runs past a
    // row's end, see kRowAlignment) and a 16-byte aligned buffer (or swscale takes its slow path). It saves
    // copying every frame once: 720p decoding alone 598 -> 626 fps, every metric 244 -> 256 fps
    // (`MienDev peer-bench`, alternating, the 2-core machine), with the same pixels on four clips.
    if (rotation_ == 0 && frame_->width == width_ && frame_->height == height_ && width_ % kDirectWidthMultiple == 0 &&
        reinterpret_cast<uintptr_t>(pixels) % kDirectAlignment == 0) {
        uint8_t *planes[4] = {pixels, nullptr, nullptr, nullptr};
        int strides[4] = {width_ * 3, 0, 0, 0};
        sws_scale(scaler_, frame_->data, frame_->linesize, 0, frame_->height, planes, strides);
        return;
    }
    sws_scale(scaler_, frame_->data, frame_->linesize, 0, frame_->height, bgr_->data, bgr_->linesize);
    const cv::Mat converted(height_, width_, CV_8UC3, bgr_->data[0], static_cast<size_t>(bgr_->linesize[0]));
    cv::Mat target(height(), width(), CV_8UC3, pixels);
    switch (rotation_) {
        case 1: cv::rotate(converted, target, cv::ROTATE_90_CLOCKWISE); break;
        case 2: cv::rotate(converted, target, cv::ROTATE_180); break;
        case 3: cv::rotate(converted, target, cv::ROTATE_90_COUNTERCLOCKWISE); break;
        default: converted.copyTo(target); break;
    }
    if (target.data != pixels) throw BridgeError(MIEN_ERR_INTERNAL, "the rotated frame did not fit the caller's buffer");
}

bool FileDecoder::read(uint8_t *pixels, size_t capacity, double *timestamp_ms) {
    if (pixels != nullptr && static_cast<size_t>(width_) * height_ * 3 > capacity)
        throw BridgeError(MIEN_ERR_INVALID_ARGUMENT, "the pixel buffer is smaller than a frame");
    if (!next_frame()) return false;
    if (timestamp_ms != nullptr) {
        // Relative to the stream's start, like OpenCV's CAP_PROP_POS_MSEC; by index and rate when the
        // frame carries no time.
        const AVStream *stream = format_->streams[stream_];
        const int64_t pts = frame_->best_effort_timestamp;
        if (pts != AV_NOPTS_VALUE) {
            const int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
            *timestamp_ms = 1000.0 * static_cast<double>(pts - start) * seconds(stream->time_base);
        } else {
            // After a seek the frames are no longer counted from the first.
            if (seeked_) throw BridgeError(MIEN_ERR_DECODE, "a frame without a presentation time after a seek");
            *timestamp_ms = fps_ > 0 ? 1000.0 * static_cast<double>(frames_read_) / fps_ : 0;
        }
    }
    frames_read_ += 1;
    // The decoded frame is released whether or not the conversion throws.
    const struct Release {
        AVFrame *frame;
        ~Release() { av_frame_unref(frame); }
    } release{frame_};
    // Skipping (no buffer): decoded, since later frames are predicted from it, but not converted.
    if (pixels != nullptr) convert(pixels);
    return true;
}

void FileDecoder::seek(double timestamp_ms) {
    if (!std::isfinite(timestamp_ms) || timestamp_ms < 0) throw BridgeError(MIEN_ERR_INVALID_ARGUMENT, "no such time");
    const AVStream *stream = format_->streams[stream_];
    const double base = seconds(stream->time_base);
    if (base <= 0) throw BridgeError(MIEN_ERR_DECODE, "the stream has no time base to seek by");
    const int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    // Rounded down: AVSEEK_FLAG_BACKWARD then lands on a key frame at or before the frame of that time.
    const int64_t target = start + static_cast<int64_t>(std::floor(timestamp_ms / 1000.0 / base));
    if (av_seek_frame(format_, stream_, target, AVSEEK_FLAG_BACKWARD) < 0)
        throw BridgeError(MIEN_ERR_DECODE, with_library_reason("FFmpeg could not seek in it"));
    avcodec_flush_buffers(codec_);
    finished_ = false;
    draining_ = false;
    seeked_ = true;
}

} // namespace mien
