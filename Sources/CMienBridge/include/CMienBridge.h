// CMienBridge: the one C++ target of Mien, exposed as a plain C API over Debian's OpenCV 4.6.
//
// Rules every entry point follows:
//  - No C++ type crosses this header: opaque handles, POD structs, fixed-width integers.
//  - Every function returns a mien_status. On failure, and only then, *error_message (when not NULL)
//    receives a malloc'd, NUL-terminated description that the caller frees with mien_string_free.
//  - Every function catches every C++ exception (cv::Exception, std::bad_alloc, ...) and reports it;
//    nothing escapes into Swift, where an exception would abort the process.
//  - Handles are created by *_open/*_create and released by the matching *_free; a handle is not
//    thread-safe and must be used by one thread at a time.
//  - Pixels are 8-bit BGR, 3 channels, rows `stride` bytes apart, top-left origin.
#ifndef CMIENBRIDGE_H
#define CMIENBRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Status and errors

typedef enum mien_status {
    MIEN_OK = 0,
    MIEN_ERR_INVALID_ARGUMENT = 1, ///< A NULL pointer, a size out of range, a wrong buffer size.
    MIEN_ERR_NOT_FOUND = 2,        ///< A file or device that does not exist.
    MIEN_ERR_DECODE = 3,           ///< Bytes that no OpenCV codec could decode.
    MIEN_ERR_TOO_LARGE = 4,        ///< An image over the caller's pixel limit (checked before decoding).
    MIEN_ERR_OPEN = 5,             ///< A video or camera that exists but could not be opened.
    MIEN_ERR_END_OF_STREAM = 6,    ///< No more frames (not a failure by itself).
    MIEN_ERR_MODEL = 7,            ///< A network that could not be parsed or run.
    MIEN_ERR_IO = 8,               ///< A read or write that failed.
    MIEN_ERR_INTERNAL = 9          ///< Any other exception, message attached.
} mien_status;

/// Frees a message returned through an `error_message` out-parameter. NULL is allowed.
void mien_string_free(char *message);

// MARK: - Digest

/// SHA-256 of `length` bytes into `digest` (32 bytes), by FFmpeg's libavutil (the model checks).
mien_status mien_sha256(const uint8_t *bytes, size_t length, uint8_t digest[32], char **error_message);

/// The OpenCV version string this bridge was built against (static storage, do not free).
const char *mien_opencv_version(void);

// MARK: - Images (still pictures)

/// A decoded picture: 8-bit BGR, 3 channels, rows `stride` bytes apart.
typedef struct mien_image mien_image;

/// `mien_image_decode`'s flags.
enum {
    /// Decode with OpenCV's cv::imdecode even a JPEG the bridge decodes itself (the same pixels, faster):
    /// for tests and comparisons.
    MIEN_DECODE_OPENCV = 1,
};

/// Decodes an image from memory (JPEG, PNG, BMP, WebP, TIFF, ... whatever OpenCV 4.6 decodes).
/// Grey, 16-bit and alpha images are converted to 8-bit BGR. EXIF orientation is applied. A plain JPEG (YCbCr
/// or grey, no EXIF, no libjpeg warning) is decoded by libjpeg-turbo straight into BGR, the pixels OpenCV gives.
/// - Parameter max_pixels: an image with more pixels is refused with MIEN_ERR_TOO_LARGE before its pixels
///   are allocated (the limit guards every matrix the decoder allocates on this thread); 0 = no limit.
/// - Parameter flags: 0, or MIEN_DECODE_OPENCV.
mien_status mien_image_decode(const uint8_t *bytes, size_t length, int64_t max_pixels, int32_t flags,
                              mien_image **out, char **error_message);

void mien_image_size(const mien_image *image, int32_t *width, int32_t *height, int32_t *stride);
const uint8_t *mien_image_pixels(const mien_image *image);
/// 1 when libjpeg-turbo decoded the picture straight into BGR, 0 when OpenCV did.
int32_t mien_image_decoded_directly(const mien_image *image);
void mien_image_free(mien_image *image);

/// Encodes BGR pixels into a file whose extension picks the codec (.png, .jpg, ...).
mien_status mien_image_write(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                             int32_t stride, char **error_message);

/// Bytes owned by the bridge (an encoded image); read with `mien_buffer_data` / `mien_buffer_size`, free with
/// `mien_buffer_free`.
typedef struct mien_buffer mien_buffer;

/// Encodes BGR pixels in memory with the codec of `extension` (".png", ".jpg", ...); `quality` 1...100 is
/// used by JPEG and WebP (0 = OpenCV's default).
mien_status mien_image_encode(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                              const char *extension, int32_t quality, mien_buffer **out, char **error_message);
const uint8_t *mien_buffer_data(const mien_buffer *buffer);
size_t mien_buffer_size(const mien_buffer *buffer);
void mien_buffer_free(mien_buffer *buffer);

// MARK: - Video files and cameras

typedef struct mien_video mien_video;

/// What a video container or camera reports about itself. Unknown values are 0.
typedef struct mien_video_info {
    int32_t width;
    int32_t height;
    double fps;          ///< Frames per second (container's nominal rate, or the camera's).
    int64_t frame_count; ///< Frames the container announces (0 for cameras or when unknown).
} mien_video_info;

/// Opens a video file with FFmpeg's libraries. Frames are returned at the stream's size (a frame of
/// another size is scaled to it) and rotated as the container's display matrix says.
/// - Parameters:
///   - max_pixels: frames (announced or decoded) over this many pixels are refused; 0: no limit.
///   - decoder_threads: threads FFmpeg's decoder may use; 0: FFmpeg's choice (one per core and one more).
mien_status mien_video_open_file(const char *path, int64_t max_pixels, int32_t decoder_threads, mien_video **out,
                                 mien_video_info *info, char **error_message);

/// Opens a V4L2 camera by device path ("/dev/video0"). A missing device fails at once; it never waits.
/// - Parameters: width, height, fps: requested capture format; 0 keeps the camera's default.
mien_status mien_video_open_camera(const char *device, int32_t width, int32_t height, double fps,
                                   mien_video **out, mien_video_info *info, char **error_message);

/// Reads the next frame into `pixels` (BGR, width*height*3 bytes, stride width*3), the buffer the caller
/// owns. `timestamp_ms` receives the container's presentation time of that frame in milliseconds.
/// Returns MIEN_ERR_END_OF_STREAM after the last frame. A camera whose frame size changes mid-stream
/// fails with MIEN_ERR_DECODE rather than writing past the buffer.
mien_status mien_video_read(mien_video *video, uint8_t *pixels, size_t capacity, double *timestamp_ms,
                            char **error_message);
/// Passes over the next frame of a video file: decoded (later frames are predicted from it) but not
/// converted, for a resumed run's frames already analysed. `timestamp_ms` as for `mien_video_read`.
/// Returns MIEN_ERR_END_OF_STREAM after the last frame.
mien_status mien_video_skip(mien_video *video, double *timestamp_ms, char **error_message);
/// Moves a video file to the key frame at or before `timestamp_ms` (the time `mien_video_read` reports): the next
/// read returns that key frame, and frames are decoded forward from it. MIEN_ERR_DECODE when the container
/// cannot seek, or (at a later read) when frames carry no presentation time to place them by.
mien_status mien_video_seek(mien_video *video, double timestamp_ms, char **error_message);
void mien_video_free(mien_video *video);

// MARK: - Video writing

typedef struct mien_video_writer mien_video_writer;

/// Opens an encoder for `path`. The four-character code picks the codec ("mp4v" for .mp4, "MJPG" for .avi).
mien_status mien_video_writer_open(const char *path, const char *fourcc, double fps, int32_t width,
                                   int32_t height, mien_video_writer **out, char **error_message);
mien_status mien_video_writer_write(mien_video_writer *writer, const uint8_t *pixels, int32_t stride,
                                    char **error_message);
void mien_video_writer_free(mien_video_writer *writer);

// MARK: - Video encoding with FFmpeg (H.264)

typedef struct mien_video_encoder mien_video_encoder;

/// Opens an H.264 encoder (libx264, else OpenH264, else MPEG-4 Part 2: the first FFmpeg has) writing `path`
/// in the container its name asks for (.mp4, .mov, .mkv). `width` and `height` must be even. `preset` is x264's
/// speed preset ("ultrafast" ... "medium"), `crf` its constant rate factor (0...51, 23 = x264's default);
/// x264's look-ahead is off ("zerolatency"), so no frames are held back. MIEN_ERR_IO when the file or the
/// encoder cannot be opened.
mien_status mien_video_encoder_open(const char *path, double fps, int32_t width, int32_t height, const char *preset,
                                    int32_t crf, mien_video_encoder **out, char **error_message);
/// Encodes one BGR picture of the opened size (`stride` bytes per row).
mien_status mien_video_encoder_write(mien_video_encoder *encoder, const uint8_t *pixels, int32_t stride,
                                     char **error_message);
/// Flushes the encoder and completes the file (MIEN_ERR_IO when it cannot be written); later calls do nothing.
mien_status mien_video_encoder_finish(mien_video_encoder *encoder, char **error_message);
/// Completes the file if `finish` was not called (errors then go unreported) and frees the encoder.
void mien_video_encoder_free(mien_video_encoder *encoder);

// MARK: - Geometry on pixels

/// Warps BGR pixels through the 2x3 affine matrix `dst_from_src` (row-major, destination = M * source)
/// into a `dst_width` x `dst_height` BGR buffer; outside the source is filled with `border` (0..255).
mien_status mien_image_warp_affine(const uint8_t *src, int32_t src_width, int32_t src_height,
                                   int32_t src_stride, const double dst_from_src[6], uint8_t *dst,
                                   int32_t dst_width, int32_t dst_height, uint8_t border,
                                   char **error_message);

/// One thing to draw on a picture (`mien_image_draw`).
typedef enum {
    MIEN_SHAPE_RECTANGLE = 0, ///< outline (thickness > 0) or filled (thickness < 0) box from (x0,y0) to (x1,y1)
    MIEN_SHAPE_LINE = 1,      ///< from (x0,y0) to (x1,y1)
    MIEN_SHAPE_CIRCLE = 2,    ///< centre (x0,y0), radius x1; filled when thickness < 0
    MIEN_SHAPE_TEXT = 3,      ///< `text` (ASCII) with its baseline starting at (x0,y0), height scale x1
} mien_shape_kind;

typedef struct {
    int32_t kind; ///< a mien_shape_kind
    double x0, y0, x1, y1;
    uint8_t blue, green, red;
    int32_t thickness;
    const char *text; ///< MIEN_SHAPE_TEXT only; may be NULL otherwise
} mien_shape;

/// Draws `count` shapes, anti-aliased, onto BGR pixels in place.
mien_status mien_image_draw(uint8_t *pixels, int32_t width, int32_t height, int32_t stride, const mien_shape *shapes,
                            int32_t count, char **error_message);

// MARK: - Network inputs (the networks themselves run on OpenVINO, outside the bridge)

/// How an image becomes a network's input tensor (N=1 float; planar C, H, W unless `interleaved`).
typedef struct mien_tensor_spec {
    int32_t width;    ///< Tensor width in pixels.
    int32_t height;   ///< Tensor height in pixels.
    int32_t channels; ///< 3 = colour, 1 = grey.
    int32_t rgb;      ///< 1: channel order RGB (MediaPipe); 0: BGR.
    float scale;      ///< value = pixel * scale + offset (pixel 0..255).
    float offset;
    uint8_t border;   ///< Pixel value (0..255) used outside the source image (when not replicating).
    uint8_t replicate; ///< 1: outside the source repeats its nearest edge pixel (Keras' fill_mode "nearest").
    uint8_t interleaved; ///< 1: H, W, C order (TensorFlow Lite's NHWC); 0: C, H, W (ONNX's NCHW).
} mien_tensor_spec;

/// Fills `tensor` (exactly `capacity` floats = width * height * channels) by warping the image through
/// `tensor_from_image` (2x3, row-major: tensor pixel = M * image pixel), converting its colour and scaling
/// its values as `spec` says. Thread-safe: each thread reuses its own scratch images.
mien_status mien_tensor_from_image(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                                   const double tensor_from_image[6], const mien_tensor_spec *spec, float *tensor,
                                   size_t capacity, char **error_message);

/// Sets the number of threads OpenCV uses for its parallel loops (<= 0: OpenCV default).
void mien_set_threads(int32_t threads);

/// Caps glibc's malloc arenas (mallopt M_ARENA_MAX; at least 1). Does nothing on other C libraries.
void mien_limit_malloc_arenas(int32_t count);

/// Returns the heap's free memory to the system (glibc's malloc_trim(0), every arena). Does nothing on other C
/// libraries.
void mien_release_free_memory(void);

#ifdef __cplusplus
}
#endif

#endif // CMIENBRIDGE_H
