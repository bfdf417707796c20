#include "FileEncoder.hpp"

#include "Guard.hpp"
#include "LibraryLog.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
}

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstring>
#include <mutex>

namespace mien {

FileEncoder::FileEncoder(const char *path, double fps, int width, int height, const char *preset, int crf)
    : width_(width), height_(height), path_(path == nullptr ? "" : path) {
    require(path != nullptr && preset != nullptr, "path or preset is NULL");
    require(fps > 0 && std::isfinite(fps), "fps must be positive");
    // 4:2:0 needs even sizes; x264 refuses others.
    require(width >= 2 && height >= 2 && width % 2 == 0 && height % 2 == 0, "frame size must be even and at least 2");
    require(crf >= 0 && crf <= 51, "crf must be 0...51");
    quiet_libraries();
    // See FileDecoder: a constructor that throws gets no destructor call.
    struct Cleanup {
        FileEncoder *encoder;
        bool armed = true;
        ~Cleanup() {
            if (armed) encoder->close();
        }
    } cleanup{this};

    if (avformat_alloc_output_context2(&format_, nullptr, nullptr, path) < 0 || format_ == nullptr)
        throw BridgeError(MIEN_ERR_IO, "FFmpeg knows no video container for this file name");
    // x264 when the FFmpeg Mien runs on has it (Debian's own libraries: the .deb and source builds), else
    // OpenH264 (the tarball, image and wheel carry an LGPL FFmpeg with Cisco's BSD-licensed encoder), else
    // FFmpeg's own MPEG-4 Part 2.
    enum class Kind { x264, openh264, mpeg4 };
    Kind kind = Kind::x264;
    const AVCodec *encoder = avcodec_find_encoder_by_name("libx264");
    if (encoder == nullptr) {
        kind = Kind::openh264;
        encoder = avcodec_find_encoder_by_name("libopenh264");
    }
    if (encoder == nullptr) {
        kind = Kind::mpeg4;
        encoder = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
    }
    if (encoder == nullptr) throw BridgeError(MIEN_ERR_IO, "FFmpeg has neither an H.264 nor an MPEG-4 encoder");
    AVStream *stream = avformat_new_stream(format_, nullptr);
    codec_ = avcodec_alloc_context3(encoder);
    if (stream == nullptr || codec_ == nullptr) throw std::bad_alloc();
    codec_->width = width;
    codec_->height = height;
    codec_->pix_fmt = AV_PIX_FMT_YUV420P;
    // Frame times count frames; the rational keeps 29.97 and other fractional rates exact enough.
    const AVRational rate = av_d2q(fps, 100000);
    codec_->time_base = av_inv_q(rate);
    codec_->framerate = rate;
    codec_->gop_size = std::max(1, static_cast<int>(std::lround(fps * 2)));
    if (format_->oformat->flags & AVFMT_GLOBALHEADER) codec_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *options = nullptr;
    switch (kind) {
    case Kind::x264:
        av_dict_set(&options, "preset", preset, 0);
        av_dict_set(&options, "tune", "zerolatency", 0);
        av_dict_set_int(&options, "crf", crf, 0);
        break;
    case Kind::openh264:
        // OpenH264 has no CRF and no presets: its quality-first rate control aims at a bit rate, here one that
        // scales with the picture (bits per pixel per frame) and doubles every 6 steps down the rate factor, as
        // x264's does. 0.2 bits per pixel at factor 23 gives the demo's annotated clip x264 ultrafast's quality
        // (PSNR 39.1 dB for both against a lossless encoding) at about half x264's size (257 kB against 487 kB).
        codec_->bit_rate = std::max<int64_t>(
            100000, std::llround(width * static_cast<double>(height) * fps * 0.2 * std::exp2((23 - crf) / 6.0)));
        av_dict_set(&options, "rc_mode", "quality", 0);
        av_dict_set_int(&options, "allow_skip_frames", 0, 0);
        break;
    case Kind::mpeg4:
        // MPEG-4 Part 2 has no CRF: a fixed quantiser of similar quality (2 best ... 31).
        codec_->flags |= AV_CODEC_FLAG_QSCALE;
        codec_->global_quality = FF_QP2LAMBDA * std::max(2, std::min(31, crf / 4));
        break;
    }
    const int opened = avcodec_open2(codec_, encoder, &options);
    av_dict_free(&options);
    if (opened < 0) throw BridgeError(MIEN_ERR_IO, "FFmpeg could not open the video encoder");
    if (avcodec_parameters_from_context(stream->codecpar, codec_) < 0)
        throw BridgeError(MIEN_ERR_IO, "FFmpeg could not describe the video stream");
    stream->time_base = codec_->time_base;
    stream->avg_frame_rate = rate;
    if (!(format_->oformat->flags & AVFMT_NOFILE) && avio_open(&format_->pb, path, AVIO_FLAG_WRITE) < 0)
        throw BridgeError(MIEN_ERR_IO, "cannot create the video file (is the folder there and writable?)");
    if (avformat_write_header(format_, nullptr) < 0) throw BridgeError(MIEN_ERR_IO, "cannot write the video header");
    header_written_ = true;

    frame_ = av_frame_alloc();
    packet_ = av_packet_alloc();
    if (frame_ == nullptr || packet_ == nullptr) throw std::bad_alloc();
    frame_->format = AV_PIX_FMT_YUV420P;
    frame_->width = width;
    frame_->height = height;
    if (av_frame_get_buffer(frame_, 0) < 0) throw std::bad_alloc();
    cleanup.armed = false;
}

FileEncoder::~FileEncoder() {
    try {
        finish();
    } catch (...) {
        // A file that cannot be completed here has no one to tell; finish() reports it when called first.
    }
    close();
}

void FileEncoder::write(const uint8_t *pixels, int stride) {
    require(pixels != nullptr, "pixels is NULL");
    require(stride >= width_ * 3, "stride is smaller than width * 3");
    require(!finished_, "the video is already finished");
    // The encoder may still hold a reference to the previous picture's buffer.
    if (av_frame_make_writable(frame_) < 0) throw std::bad_alloc();
    // OpenCV's vectorised conversion, like the bridge's other colour conversions.
    const cv::Mat bgr(height_, width_, CV_8UC3, const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
    cv::cvtColor(bgr, yuv_, cv::COLOR_BGR2YUV_I420);
    const uint8_t *plane = yuv_.data;
    for (int p = 0; p < 3; ++p) {
        const int rows = p == 0 ? height_ : height_ / 2;
        const int bytes = p == 0 ? width_ : width_ / 2;
        for (int row = 0; row < rows; ++row) {
            std::memcpy(frame_->data[p] + static_cast<ptrdiff_t>(row) * frame_->linesize[p], plane, bytes);
            plane += bytes;
        }
    }
    frame_->pts = next_pts_++;
    if (avcodec_send_frame(codec_, frame_) < 0) throw BridgeError(MIEN_ERR_IO, "the video encoder refused a frame");
    drain();
}

void FileEncoder::drain() {
    while (true) {
        const int received = avcodec_receive_packet(codec_, packet_);
        if (received == AVERROR(EAGAIN) || received == AVERROR_EOF) return;
        if (received < 0) throw BridgeError(MIEN_ERR_IO, "the video encoder failed");
        av_packet_rescale_ts(packet_, codec_->time_base, format_->streams[0]->time_base);
        packet_->stream_index = 0;
        const int written = av_interleaved_write_frame(format_, packet_);
        av_packet_unref(packet_);
        if (written < 0) throw BridgeError(MIEN_ERR_IO, "cannot write the video (disk full?)");
    }
}

void FileEncoder::finish() {
    if (finished_ || codec_ == nullptr || format_ == nullptr) return;
    finished_ = true;
    avcodec_send_frame(codec_, nullptr);
    drain();
    if (header_written_ && av_write_trailer(format_) < 0) throw BridgeError(MIEN_ERR_IO, "cannot complete the video");
    if (format_->pb != nullptr && avio_closep(&format_->pb) < 0)
        throw BridgeError(MIEN_ERR_IO, "cannot complete the video (disk full?)");
}

void FileEncoder::close() noexcept {
    av_packet_free(&packet_);
    av_frame_free(&frame_);
    avcodec_free_context(&codec_);
    if (format_ != nullptr) {
        if (format_->pb != nullptr && !(format_->oformat->flags & AVFMT_NOFILE)) avio_closep(&format_->pb);
        avformat_free_context(format_);
        format_ = nullptr;
    }
}

} // namespace mien

struct mien_video_encoder {
    mien::FileEncoder encoder;
};

extern "C" mien_status mien_video_encoder_open(const char *path, double fps, int32_t width, int32_t height,
                                               const char *preset, int32_t crf, mien_video_encoder **out,
                                               char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(out != nullptr, "out is NULL");
        *out = nullptr;
        *out = new mien_video_encoder{mien::FileEncoder(path, fps, width, height, preset, crf)};
        return MIEN_OK;
    });
}

extern "C" mien_status mien_video_encoder_write(mien_video_encoder *encoder, const uint8_t *pixels, int32_t stride,
                                                char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(encoder != nullptr, "encoder is NULL");
        encoder->encoder.write(pixels, stride);
        return MIEN_OK;
    });
}

extern "C" mien_status mien_video_encoder_finish(mien_video_encoder *encoder, char **error_message) {
    return mien::guarded(error_message, [&] {
        mien::require(encoder != nullptr, "encoder is NULL");
        encoder->encoder.finish();
        return MIEN_OK;
    });
}

extern "C" void mien_video_encoder_free(mien_video_encoder *encoder) {
    try {
        delete encoder;
    } catch (...) {
        // See mien_video_free.
    }
}
