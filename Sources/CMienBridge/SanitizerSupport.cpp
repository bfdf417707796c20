// Lets sanitized builds (`make sanitize`, `make fuzz`) run with OpenVINO loaded. Compiled to nothing otherwise.
//
// Debian's oneTBB 2021.8 dlopens its hardware-topology helper (libtbbbind) with RTLD_DEEPBIND when OpenVINO
// asks for the machine's cores, and the sanitizers' dlopen interceptor refuses that flag and ends the process
// (google/sanitizers#611; the TBB_ENABLE_SANITIZERS switch of later oneTBB releases is not in 2021.8). In a
// sanitized build this definition wins over the interceptor (a weak symbol) and hands the call to the C
// library without the flag: the helper then binds to the process's symbols, as the sanitizers need.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MIEN_SANITIZED 1
#endif
#endif

#ifdef MIEN_SANITIZED
#include <dlfcn.h>

extern "C" void *dlopen(const char *file, int mode) {
    using Open = void *(*)(const char *, int);
    static const Open next = reinterpret_cast<Open>(dlsym(RTLD_NEXT, "dlopen"));
    return next(file, mode & ~RTLD_DEEPBIND);
}
#endif
