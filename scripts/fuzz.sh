#!/usr/bin/env bash
# libFuzzer over the bridge's C entry points (image decode, video open/read, pushed-frame tensor warp,
# drawing; the pushed frame's tensor also goes through OpenVINO), built with the Swift toolchain's clang (-fsanitize=fuzzer,address,undefined) against Debian's
# OpenCV. Each target runs SECONDS (default 600) from a seed corpus made from the bundled sample plus the
# committed regression inputs in Fuzz/regressions/<target>/. A crash leaves its input in
# .build/fuzz/<target>/crashes/ and fails the run; fix it, then copy the input to Fuzz/regressions/<target>/.
#
# usage: scripts/fuzz.sh [SECONDS] [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
# FUZZ_SEED fixes libFuzzer's random seed (0, the default, lets it pick one).
seed=${FUZZ_SEED:-0}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(image_decode video_open frame_push)

cxx=${FUZZ_CXX:-$(command -v clang++ || true)}
[ -n "$cxx" ] || { echo "fuzz: no clang++ (the Swift toolchain's clang has libFuzzer)" >&2; exit 1; }
build=.build/fuzz
mkdir -p "$build/bin"
cv_flags=$(pkg-config --cflags mien-opencv4)
cv_libs="$(pkg-config --libs mien-opencv4 libavformat libavcodec libswscale libavutil libjpeg)"
# OpenVINO (frame_push runs the detector network on the tensor the bridge prepared), uninstrumented.
ov_flags=$(pkg-config --cflags openvino)
ov_libs=$(pkg-config --libs openvino)
bridge=(Sources/CMienBridge/*.cpp)
# The toolchain's lld when there is one (gold prints a page of harmless ASan symbol warnings).
linker=""
if command -v ld.lld >/dev/null || [ -x "$(dirname "$cxx")/ld.lld" ]; then linker=-fuse-ld=lld; fi

if [ ! -x "$build/make_seeds" ] || [ Fuzz/make_seeds.cpp -nt "$build/make_seeds" ]; then
    "$cxx" -std=c++17 -O1 $cv_flags Fuzz/make_seeds.cpp -o "$build/make_seeds" $cv_libs
fi
summary=()
status=0
for target in "${targets[@]}"; do
    binary="$build/bin/$target"
    if [ ! -x "$binary" ] || [ -n "$(find Fuzz/$target.cpp Fuzz/fuzz_common.hpp Sources/CMienBridge -newer "$binary" | head -1)" ]; then
        echo "== building $target"
        "$cxx" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $linker \
            -ISources/CMienBridge/include $cv_flags $ov_flags -DCV_IGNORE_DEPRECATED_WARNINGS \
            "Fuzz/$target.cpp" "${bridge[@]}" -o "$binary" $cv_libs $ov_libs
    fi
    corpus="$build/$target/corpus"
    crashes="$build/$target/crashes"
    mkdir -p "$corpus" "$crashes" "$build/seeds/$target"
    "$build/make_seeds" Samples/astronaut.jpg "$build/seeds" >/dev/null 2>&1
    echo "== $target for $seconds s"
    log="$build/$target/run.log"
    set +e
    # Regression inputs, when the target has any (git keeps no empty folder).
    regressions=()
    [ -d "Fuzz/regressions/$target" ] && regressions=("Fuzz/regressions/$target")
    # scripts/lsan.supp: the bounded per-thread state OpenVINO keeps until exit (frame_push).
    LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 "$binary" "$corpus" "$build/seeds/$target" \
        "${regressions[@]}" -max_total_time="$seconds" -seed="$seed" -timeout=20 -rss_limit_mb=3072 -max_len=262144 \
        -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    set -e
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
    if [ $rc -ne 0 ]; then
        status=1
        echo "fuzz: $target FAILED (exit $rc); input in $crashes; log $log" >&2
        grep -m5 -E 'ERROR|SUMMARY|runtime error' "$log" >&2 || tail -20 "$log" >&2
    fi
    summary+=("{\"target\":\"$target\",\"seconds\":$seconds,\"executions\":${runs},\"coverage\":${cov},\"crashed\":$([ $rc -ne 0 ] && echo true || echo false)}")
done
echo "{\"fuzz\":[$(IFS=,; echo "${summary[*]}")]}"
exit $status
