#include "Guard.hpp"

#include <opencv2/core/utility.hpp>

#include <malloc.h>

extern "C" void mien_string_free(char *message) { std::free(message); }

extern "C" const char *mien_opencv_version(void) { return CV_VERSION; }

extern "C" void mien_set_threads(int32_t threads) {
    try {
        cv::setNumThreads(threads);
    } catch (...) {
        // Thread count is a tuning knob; failing to set it leaves OpenCV's default, which is correct.
    }
}

extern "C" void mien_limit_malloc_arenas(int32_t count) {
#ifdef M_ARENA_MAX
    mallopt(M_ARENA_MAX, count < 1 ? 1 : count);
#endif
}

extern "C" void mien_release_free_memory(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
