// Intentionally empty for C and Swift: the OpenCV headers are included by the C++ bridge only.
#if defined(__cplusplus)
#include <opencv2/core.hpp>
#endif
