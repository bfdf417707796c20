// OpenVINO's plain C API; its headers come from pkg-config's `openvino` (see scripts/install-openvino.sh).
#include <openvino/c/openvino.h>
