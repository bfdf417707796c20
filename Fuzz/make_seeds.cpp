// Writes the fuzzers' seed corpus from the bundled sample: small pictures in every format the decoder
// knows (colour, grey, 16-bit, alpha) and two tiny videos, plus frame_push inputs around the sample.
// Built and run by scripts/fuzz.sh; nothing here is committed but this source.
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: make_seeds SAMPLE.jpg OUTPUT_DIR\n");
        return 2;
    }
    const std::string out = argv[2];
    const cv::Mat sample = cv::imread(argv[1], cv::IMREAD_COLOR);
    if (sample.empty()) return 1;
    cv::Mat small, grey, deep, alpha;
    cv::resize(sample, small, {40, 40}, 0, 0, cv::INTER_AREA);
    cv::cvtColor(small, grey, cv::COLOR_BGR2GRAY);
    small.convertTo(deep, CV_16UC3, 257);
    cv::cvtColor(small, alpha, cv::COLOR_BGR2BGRA);
    const std::string images = out + "/image_decode/";
    for (const char *ext : {".png", ".jpg", ".bmp", ".webp", ".tiff", ".ppm", ".jp2"}) cv::imwrite(images + "colour" + ext, small);
    cv::imwrite(images + "grey.png", grey);
    cv::imwrite(images + "grey.jpg", grey);
    cv::imwrite(images + "deep.png", deep);
    cv::imwrite(images + "deep.tiff", deep);
    cv::imwrite(images + "alpha.png", alpha);
    cv::imwrite(images + "one-pixel.png", cv::Mat(1, 1, CV_8UC3, cv::Scalar(10, 20, 30)));

    const std::string videos = out + "/video_open/";
    const std::vector<std::pair<std::string, std::string>> kinds = {{"clip.avi", "MJPG"}, {"clip.mp4", "mp4v"}};
    for (const auto &[name, fourcc] : kinds) {
        cv::VideoWriter writer(videos + name, cv::VideoWriter::fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]), 10,
                               {32, 32});
        for (int i = 0; i < 4; ++i) {
            cv::Mat frame;
            cv::resize(sample(cv::Rect(i * 20, i * 10, 400, 400)), frame, {32, 32}, 0, 0, cv::INTER_AREA);
            writer.write(frame);
        }
    }

    // frame_push: header (width, height, pad, identity-ish transform to 128 px) then the pixels.
    const std::string frames = out + "/frame_push/";
    for (int size : {40, 1}) {
        cv::Mat picture;
        cv::resize(sample, picture, {size, size}, 0, 0, cv::INTER_AREA);
        std::vector<unsigned char> bytes = {0, static_cast<unsigned char>(size), 0, static_cast<unsigned char>(size), 0};
        const double scale = 128.0 / size;
        const double values[6] = {scale / 4, 0, 0, 0, scale / 4, 0};
        for (int i = 0; i < 6; ++i) {
            const double unit = (i == 2 || i == 5) ? values[i] / 2048 : values[i];
            const int raw = static_cast<int>(unit * 32768 + 32768);
            bytes.push_back(static_cast<unsigned char>(raw >> 8));
            bytes.push_back(static_cast<unsigned char>(raw & 255));
        }
        bytes.insert(bytes.end(), picture.data, picture.data + picture.total() * 3);
        std::ofstream(frames + "sample-" + std::to_string(size) + ".bin", std::ios::binary)
            .write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    return 0;
}
