// Loads dlib_face_recognition_resnet_model_v1.dat with dlib itself (Debian's libdlib-dev), writes every
// layer's parameters as XML (dlib::net_to_xml) for dlib_xml_to_onnx.py, and dlib's own 128-d descriptors of
// four deterministic 150 x 150 chips (pixels, then descriptor) for verify_against_dlib.py. The network is
// the one declared in dlib's examples/dnn_face_recognition_ex.cpp, which the .dat file was saved with.
#include <dlib/dnn.h>
#include <fstream>
#include <iostream>
#include <random>
using namespace dlib;
template <template <int,template<typename>class,int,typename> class block, int N, template<typename>class BN, typename SUBNET>
using residual = add_prev1<block<N,BN,1,tag1<SUBNET>>>;
template <template <int,template<typename>class,int,typename> class block, int N, template<typename>class BN, typename SUBNET>
using residual_down = add_prev2<avg_pool<2,2,2,2,skip1<tag2<block<N,BN,2,tag1<SUBNET>>>>>>;
template <int N, template <typename> class BN, int stride, typename SUBNET>
using block  = BN<con<N,3,3,1,1,relu<BN<con<N,3,3,stride,stride,SUBNET>>>>>;
template <int N, typename SUBNET> using ares      = relu<residual<block,N,affine,SUBNET>>;
template <int N, typename SUBNET> using ares_down = relu<residual_down<block,N,affine,SUBNET>>;
template <typename SUBNET> using alevel0 = ares_down<256,SUBNET>;
template <typename SUBNET> using alevel1 = ares<256,ares<256,ares_down<256,SUBNET>>>;
template <typename SUBNET> using alevel2 = ares<128,ares<128,ares_down<128,SUBNET>>>;
template <typename SUBNET> using alevel3 = ares<64,ares<64,ares<64,ares_down<64,SUBNET>>>>;
template <typename SUBNET> using alevel4 = ares<32,ares<32,ares<32,SUBNET>>>;
using anet_type = loss_metric<fc_no_bias<128,avg_pool_everything<
                            alevel0<alevel1<alevel2<alevel3<alevel4<
                            max_pool<3,3,2,2,relu<affine<con<32,7,7,2,2,
                            input_rgb_image_sized<150>
                            >>>>>>>>>>>>;
int main(int argc, char** argv) {
    if (argc < 4) { std::cerr << "usage: dump model.dat net.xml reference.bin\n"; return 64; }
    anet_type net;
    deserialize(argv[1]) >> net;
    net_to_xml(net, argv[2]);
    // Reference: 4 chips of deterministic pseudo-random pixels (smooth-ish), pixels then descriptor.
    std::ofstream out(argv[3], std::ios::binary);
    std::mt19937 gen(26);
    std::vector<matrix<rgb_pixel>> chips;
    for (int n = 0; n < 4; ++n) {
        matrix<rgb_pixel> chip(150, 150);
        std::uniform_int_distribution<int> d(0, 255);
        int base = d(gen);
        for (long r = 0; r < 150; ++r) for (long c = 0; c < 150; ++c) {
            unsigned char v = (unsigned char)((base + r * (n + 1) + c * 2 + d(gen) / 8) % 256);
            chip(r, c) = rgb_pixel(v, (unsigned char)(255 - v), (unsigned char)((v * 3) % 256));
        }
        chips.push_back(chip);
    }
    std::vector<matrix<float,0,1>> descriptors = net(chips);
    for (size_t n = 0; n < chips.size(); ++n) {
        for (long r = 0; r < 150; ++r) for (long c = 0; c < 150; ++c) {
            out.write((const char*)&chips[n](r, c).red, 1);
            out.write((const char*)&chips[n](r, c).green, 1);
            out.write((const char*)&chips[n](r, c).blue, 1);
        }
        out.write((const char*)&descriptors[n](0), 128 * sizeof(float));
    }
    std::cout << "descriptor 0: " << descriptors[0](0) << " " << descriptors[0](1) << " norm " << length(descriptors[0]) << "\n";
    return 0;
}
