#!/usr/bin/env bash
# `make package-check`: every artifact on a clean system made here, never only on the build machine.
#
# 1. lintian on the .deb: no error (warnings printed); `make install` and `make uninstall` in a staging folder.
# 2. A clean Debian bookworm root (mmdebstrap minbase: no Swift, no compiler, no -dev package): apt-get
#    installs the .deb, pulling only Debian packages (timed, apt's downloads included, to the first result);
#    `mien models` verifies every checksum; `mien detect --expressions` on the sample prints exactly what the
#    source build prints; `mien analyze` writes a clip's CSV; `mien serve` answers /healthz and /v1/analyze on
#    loopback; `apt-get purge mien` leaves no file of Mien's behind.
# 3. A clean Debian trixie root (another glibc, other OpenCV and FFmpeg): the tarball, unpacked and then moved
#    elsewhere, gives the same sample output with nothing installed for it.
# 3b. The wheel on a clean bookworm root with only python3-venv: pip install, mien.analyze on the sample, the
#     `mien` command it installs gives the same output.
# 4. The container image, built with podman on the bookworm root imported as its base: `mien detect` on a
#    mounted picture gives the same output, `mien serve` is healthy and enforces its token, and refuses to
#    start without one.
# Each of the tarball, wheel and image: no GPL part (scripts/dist/gpl-check.sh reads the FFmpeg libraries'
# configuration strings and the licence table); the tarball's annotated video is H.264 and reads back.
# 5. The tarball unpacked in one folder, run by the sbatch script on a local Slurm (scripts/slurm-test.sh).
# Sizes and times are printed, with a JSON line last.
#
# Usage: package-check.sh DIST_DIR BUNDLE_NAME VERSION
set -euo pipefail
DIST=$(realpath "${1:?usage: package-check.sh DIST_DIR BUNDLE_NAME VERSION}")
BUNDLE=$2
VERSION=$3
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
ARCH=$(dpkg --print-architecture)
DEB=$DIST/mien_${VERSION}_$ARCH.deb
TARBALL=$DIST/$BUNDLE.tar.gz
SOURCE_MIEN=.build/release/mien
WORK=$TOP/.build/package-check
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
started=$(date +%s)

fail() { echo "package-check: FAILED: $*" >&2; exit 1; }
say() { echo "== $*"; }
[ -f "$DEB" ] && [ -f "$TARBALL" ] && [ -x "$SOURCE_MIEN" ] || fail "run make deb first ($DEB, $TARBALL, $SOURCE_MIEN)"

need=()
for tool in mmdebstrap:mmdebstrap lintian:lintian podman:podman runc:runc curl:curl; do
    command -v "${tool%%:*}" >/dev/null || need+=("${tool##*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

mounts=()
serve_pid=""
container=""
cleanup() {
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
    [ -n "$container" ] && podman rm -f "$container" >/dev/null 2>&1
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do $SUDO umount -l "${mounts[$i]}" 2>/dev/null || true; done
    true
}
trap cleanup EXIT
$SUDO rm -rf "$WORK"
mkdir -p "$WORK/in"
cp Samples/astronaut.jpg "$WORK/in/"
"$SOURCE_MIEN" detect --expressions "$WORK/in/astronaut.jpg" >"$WORK/expected.jsonl"
sed -i "s#$WORK/in/##" "$WORK/expected.jsonl" # the input's path is part of the output; compare from one folder
[ -s "$WORK/expected.jsonl" ] || fail "the source build printed nothing for the sample"
.build/debug/MienDev make-clip --width 320 --height 240 --frames 15 --fps 15 "$WORK/in/clip.mp4" >/dev/null

# Runs COMMAND in ROOT with /proc and /dev, from ROOT's /check (where the inputs are), as a clean login would.
in_root() {
    local root=$1
    shift
    $SUDO chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 /bin/sh -c "cd /check && $*"
}
make_root() { # make_root SUITE DIR: a minbase root from Debian's archive (made once a day), ready for chroot
    local tar
    tar=$(scripts/dist/debian-root.sh "$1") || fail "mmdebstrap $1"
    [ -f "$WORK/$1.tar" ] || ln "$tar" "$WORK/$1.tar" 2>/dev/null || cp "$tar" "$WORK/$1.tar"
    mkdir -p "$2"
    $SUDO tar -C "$2" -xf "$WORK/$1.tar"
    $SUDO cp /etc/resolv.conf "$2/etc/resolv.conf"
    $SUDO mount -t proc proc "$2/proc" && mounts+=("$2/proc")
    $SUDO mount --bind /dev "$2/dev" && mounts+=("$2/dev")
    $SUDO mount --bind /sys "$2/sys" && mounts+=("$2/sys") # oneTBB reads the CPU topology there
    $SUDO mkdir -p "$2/check"
    $SUDO cp "$WORK/in/astronaut.jpg" "$WORK/in/clip.mp4" "$2/check/"
}
same_output() { # same_output FILE WHAT
    cmp -s "$WORK/expected.jsonl" "$1" || { diff <(head -c 600 "$WORK/expected.jsonl") <(head -c 600 "$1") || true; fail "$2 differs from the source build's output"; }
}

# --- 1. lintian
say "lintian $(basename "$DEB")"
lintian --fail-on error --tag-display-limit 0 "$DEB" >"$WORK/lintian.txt" 2>&1 || { cat "$WORK/lintian.txt"; fail "lintian reports errors"; }
lintian_warnings=$(grep -c '^W: ' "$WORK/lintian.txt" || true)
cat "$WORK/lintian.txt"
echo "lintian: no error, $lintian_warnings warning(s)"

# The systemd unit: valid, and how exposed (systemd's own score, 0 = fully sandboxed ... 10), with ExecStart
# pointed at the bundle's binary since the package is not installed on this machine.
if command -v systemd-analyze >/dev/null; then
    mkdir -p "$WORK/unit"
    sed "s#/usr/bin/mien#$DIST/$BUNDLE/bin/mien#" deploy/systemd/mien.service >"$WORK/unit/mien.service"
    systemd-analyze verify --man=no "$WORK/unit/mien.service" || fail "systemd-analyze verify mien.service"
    exposure=$(systemd-analyze security --offline=yes "$WORK/unit/mien.service" 2>&1 | grep -o 'exposure level for mien.service: [0-9.]*' | grep -o '[0-9.]*$')
    echo "mien.service: valid; systemd-analyze security exposure $exposure"
fi

# --- 1b. make install / make uninstall into a staging folder
say "make install and make uninstall (DESTDIR)"
D=$WORK/destdir
scripts/dist/install.sh install "$DIST/$BUNDLE" "$D" /usr/local >/dev/null
(cd "$WORK/in" && env -i "$D/usr/local/bin/mien" detect --expressions astronaut.jpg) >"$WORK/install.jsonl" ||
    fail "mien detect from make install"
same_output "$WORK/install.jsonl" "make install's mien detect --expressions"
installed_files=$(wc -l <"$D/usr/local/share/mien/installed-files")
scripts/dist/install.sh uninstall - "$D" /usr/local >/dev/null
left=$(find "$D" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "make install: $installed_files files, same output; make uninstall: nothing left"

# --- 2. the .deb on a clean bookworm root
say "the .deb on a clean bookworm root"
B=$WORK/bookworm
make_root bookworm "$B"
$SUDO cp "$DEB" "$B/check/"
before=$(in_root "$B" "dpkg-query -W -f='\${Package}\n'" | sort)
t0=$(date +%s.%N)
in_root "$B" "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./$(basename "$DEB") >/check/apt.log 2>&1 &&
    mien detect --expressions astronaut.jpg >deb.jsonl" || { tail -20 "$B/check/apt.log"; fail "installing the .deb or its first result"; }
t1=$(date +%s.%N)
install_seconds=$(awk "BEGIN {printf \"%.1f\", $t1 - $t0}")
added=$(comm -13 <(echo "$before") <(in_root "$B" "dpkg-query -W -f='\${Package}\n'" | sort))
download=$(grep -m1 -o 'Need to get [0-9.,]* [kMG]B' "$B/check/apt.log" | sed 's/Need to get //')
disk=$(grep -m1 -o 'After this operation, [0-9.,]* [kMG]B' "$B/check/apt.log" | sed 's/After this operation, //')
echo "apt-get update + install + first result: ${install_seconds} s; $(echo "$added" | wc -l) packages added ($download downloaded, $disk on disk)"
same_output "$B/check/deb.jsonl" "the .deb's mien detect --expressions"
bad=$(echo "$added" | grep -E -- '-dev$|^(gcc|g\+\+|cpp|clang|swift|swiftlang)(-|$)' || true)
[ -z "$bad" ] || fail "installing the .deb pulled in build tools: $bad"
foreign=$(in_root "$B" "apt-cache policy \$(dpkg-query -W -f='\${Package} ')" | awk '/\*\*\*/{getline; print}' |
    grep -v -E 'deb\.debian\.org|security\.debian\.org|/var/lib/dpkg/status' || true)
[ -z "$foreign" ] || fail "packages from outside Debian's archive: $foreign"
in_root "$B" "mien models" >"$WORK/models.txt" || { cat "$WORK/models.txt"; fail "mien models in the bookworm root"; }
in_root "$B" "mien analyze clip.mp4 --output out" 2>"$WORK/analyze.log" || { cat "$WORK/analyze.log"; fail "mien analyze"; }
rows=$(($(wc -l <"$B/check/out/clip.mp4.csv") - 1))
[ "$rows" -ge 10 ] || fail "mien analyze wrote $rows face rows for 15 frames"
echo "mien models: $(grep -c -i ok "$WORK/models.txt" || true) lines ok; mien analyze: $rows face rows in out/clip.mp4.csv"
$SUDO chroot "$B" /usr/bin/mien serve --port 0 2>"$WORK/serve.log" &
serve_pid=$!
port=""
for _ in $(seq 1 100); do
    port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$WORK/serve.log" | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break
    kill -0 "$serve_pid" 2>/dev/null || fail "mien serve exited: $(cat "$WORK/serve.log")"
    sleep 0.1
done
[ -n "$port" ] || fail "mien serve did not say where it listens"
curl -sf --max-time 10 "http://127.0.0.1:$port/healthz" >/dev/null || fail "/healthz of the .deb's mien serve"
faces=$(curl -sf --max-time 30 --data-binary @"$WORK/in/astronaut.jpg" "http://127.0.0.1:$port/v1/analyze" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["faces"]))') || fail "/v1/analyze of the .deb's mien serve"
[ "$faces" = 1 ] || fail "/v1/analyze found $faces faces in the sample"
kill -TERM "$serve_pid" && wait "$serve_pid" || true
serve_pid=""
echo "mien serve: /healthz and /v1/analyze answered on loopback ($faces face)"
in_root "$B" "dpkg -L mien" >"$WORK/deb-files.txt"
installed_kb=$(in_root "$B" "dpkg-query -W -f='\${Installed-Size}' mien")
in_root "$B" "DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq mien >/dev/null 2>&1" || fail "apt-get purge mien"
left=$(while read -r path; do [ -e "$B$path" ] && [ ! -d "$B$path" ] && echo "$path"; done <"$WORK/deb-files.txt" || true)
# (/tmp is left out: what mien serve wrote there at run time, its default jobs folder, is not the package's.)
left+=$($SUDO find "$B" -xdev \( -path "$B/check" -o -path "$B/proc" -o -path "$B/dev" -o -path "$B/sys" -o -path "$B/tmp" \) -prune -o -iname '*mien*' -print |
    sed "s#^$B##")
[ -z "$left" ] || fail "apt-get purge mien left: $left"
echo "apt-get purge mien: no file of Mien's left"

# --- 3. the tarball on a clean trixie root
say "the tarball on a clean trixie root"
T=$WORK/trixie
make_root trixie "$T"
$SUDO cp "$TARBALL" "$T/check/"
in_root "$T" "mkdir -p /opt/a && tar -C /opt/a -xzf $(basename "$TARBALL") && /opt/a/$BUNDLE/bin/mien detect --expressions astronaut.jpg >tarball.jsonl" ||
    fail "the tarball's mien on trixie"
same_output "$T/check/tarball.jsonl" "the tarball's mien detect --expressions on trixie"
in_root "$T" "mkdir -p /srv/elsewhere && mv /opt/a/$BUNDLE /srv/elsewhere/ && /srv/elsewhere/$BUNDLE/bin/mien models >/dev/null &&
    /srv/elsewhere/$BUNDLE/bin/mien detect --expressions astronaut.jpg >moved.jsonl" || fail "the tarball moved elsewhere"
same_output "$T/check/moved.jsonl" "the moved tarball's output"
# (sed, not head: head's early exit would end ldd with SIGPIPE, which pipefail turns into a failure)
glibc=$(in_root "$T" "ldd --version | sed -n 1p" | grep -o '[0-9.]*$')
outside=$(in_root "$T" "ldd /srv/elsewhere/$BUNDLE/bin/mien /srv/elsewhere/$BUNDLE/lib/mien/*.so*" | awk '/=>/ {print $1, $3}' |
    grep -v -E '^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so|/srv/elsewhere/' | sort -u || true)
[ -z "$outside" ] || fail "on trixie the bundle loads from outside itself: $outside"
echo "trixie (glibc $glibc): same output, unpacked and moved; nothing loaded from outside the bundle but glibc and the C++ runtime"
# The tarball's annotated video: H.264 from OpenH264 (its FFmpeg has no x264), read back frame by frame.
in_root "$T" "/srv/elsewhere/$BUNDLE/bin/mien analyze clip.mp4 --metrics none --annotate annotated --output annotated >/dev/null 2>&1 &&
    /srv/elsewhere/$BUNDLE/bin/mien detect annotated/clip.mp4.mp4 >annotated.jsonl" || fail "the tarball's annotated video"
annotated_frames=$(wc -l <"$T/check/annotated.jsonl")
[ "$annotated_frames" = 15 ] || fail "the tarball's annotated video reads back as $annotated_frames frames, not 15"
grep -q avc1 "$T/check/annotated/clip.mp4.mp4" || fail "the tarball's annotated video is not H.264"
annotated_kb=$(($(stat -c %s "$T/check/annotated/clip.mp4.mp4") / 1000))
echo "the tarball's annotated clip: H.264 (avc1, OpenH264), $annotated_kb kB, all 15 frames decode"
say "no GPL part in the tarball"
mkdir -p "$WORK/gpl/tarball"
tar -C "$WORK/gpl/tarball" -xzf "$TARBALL"
scripts/dist/gpl-check.sh "the tarball" "$WORK/gpl/tarball"

# --- 3b. the wheel on a clean bookworm root with nothing but python3-venv (numpy, pandas and the pinned
# openvino wheel come from PyPI as its dependencies)
say "the wheel on a clean bookworm root (python3-venv only)"
P=$WORK/python
make_root bookworm "$P"
WHEEL=$(ls "$DIST"/mien-"$VERSION"-py3-none-*.whl)
$SUDO cp "$WHEEL" "$P/check/"
# pip verifies PyPI's certificate against this machine's CA bundle, as pip on the host does (PIP_CERT).
if [ -n "${PIP_CERT:-}" ]; then $SUDO cp "$PIP_CERT" "$P/check/ca.pem"; fi
in_root "$P" "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null &&
    python3 -m venv /v && if [ -f ca.pem ]; then export PIP_CERT=/check/ca.pem; fi && /v/bin/pip install -q ./$(basename "$WHEEL") >pip.log 2>&1" ||
    { tail -20 "$P/check/pip.log"; fail "pip install of the wheel"; }
in_root "$P" "/v/bin/python -c \"import mien; print(mien.analyze('astronaut.jpg', progress=False))\" >python.txt && /v/bin/mien --version >version.txt &&
    /v/bin/mien detect --expressions astronaut.jpg >wheel.jsonl" || fail "the wheel's mien on the clean root"
same_output "$P/check/wheel.jsonl" "the wheel's mien detect --expressions"
grep -q "astronaut.jpg" "$P/check/python.txt" && grep -q "1 rows" "$P/check/python.txt" ||
    fail "mien.analyze('astronaut.jpg') printed: $(cat "$P/check/python.txt")"
python_version=$(in_root "$P" "python3 --version" | grep -o '[0-9.]*$')
echo "wheel ($(stat -c %s "$WHEEL" | awk '{printf "%.1f", $1 / 1e6}') MB) on Python $python_version: pip install, mien.analyze printed the face's row, $(cat "$P/check/version.txt")"
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$WHEEL" "$WORK/gpl/wheel"
scripts/dist/gpl-check.sh "the wheel" "$WORK/gpl/wheel"

# --- 4. the container image
say "the container image (podman, base: the bookworm root)"
printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' >"$WORK/containers.conf"
export CONTAINERS_CONF=$WORK/containers.conf
base=localhost/mien-check-base:bookworm
image=localhost/mien-check:$VERSION
podman import --quiet "$WORK/bookworm.tar" "$base" >/dev/null
scripts/dist/make-image.sh "$image" "$base" "$VERSION" >/dev/null
podman run --rm --network none -v "$WORK/in:/data:ro" "$image" detect --expressions /data/astronaut.jpg |
    sed 's#/data/##' >"$WORK/image.jsonl" || fail "podman run mien detect"
same_output "$WORK/image.jsonl" "the image's mien detect --expressions"
if podman run --rm --network none "$image" >"$WORK/notoken.log" 2>&1; then fail "the image's mien serve started without a token"; fi
grep -qi token "$WORK/notoken.log" || fail "without a token, mien serve did not say why: $(cat "$WORK/notoken.log")"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
container=mien-check-$$
# (--health-interval=disable: no systemd timer here to run the check; `podman healthcheck run` runs it below.)
podman run -d --name "$container" --health-interval=disable -p "127.0.0.1:$port:8080" -e MIEN_TOKEN=check-token "$image" >/dev/null
for _ in $(seq 1 100); do curl -sf --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
curl -sf --max-time 5 "http://127.0.0.1:$port/healthz" >/dev/null || fail "the container's /healthz: $(podman logs "$container" 2>&1 | tail -5)"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 --data-binary @"$WORK/in/astronaut.jpg" "http://127.0.0.1:$port/v1/analyze")
[ "$code" = 401 ] || fail "the container answered $code to /v1/analyze without the token"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -H 'Authorization: Bearer check-token' \
    --data-binary @"$WORK/in/astronaut.jpg" "http://127.0.0.1:$port/v1/analyze")
[ "$code" = 200 ] || fail "the container answered $code to /v1/analyze with the token"
podman healthcheck run "$container" >/dev/null || fail "the image's HEALTHCHECK reports unhealthy"
user=$(podman exec "$container" sh -c 'id -u')
[ "$user" != 0 ] || fail "the container runs as root"
podman rm -f "$container" >/dev/null
container=""
image_mb=$(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.1f", $1 / 1e6}')
base_mb=$(podman image inspect --format '{{.Size}}' "$base" | awk '{printf "%.1f", $1 / 1e6}')
labels=$(podman image inspect --format '{{json .Labels}}' "$image")
[[ $labels == *"\"org.opencontainers.image.version\":\"$VERSION\""* ]] || fail "the image's version label: $labels"
container=$(podman create "$image")
mkdir -p "$WORK/gpl/image"
podman export "$container" | tar -C "$WORK/gpl/image" -x opt
podman rm "$container" >/dev/null
container=""
scripts/dist/gpl-check.sh "the image" "$WORK/gpl/image"
podman rmi -f "$image" "$base" >/dev/null
echo "image: same output; healthy; 401 without the token, 200 with it; refuses to start without one; user $user; $image_mb MB (base $base_mb MB)"

# --- 5. the tarball on Slurm: unpacked once into a folder every task reads (a shared file system on a real
# cluster), run by deploy/slurm/mien-array.sbatch through MIEN (the same array checks as make slurm-test)
say "the tarball under Slurm (deploy/slurm/mien-array.sbatch)"
mkdir -p "$WORK/shared"
tar -C "$WORK/shared" -xzf "$TARBALL"
scripts/slurm-test.sh "$WORK/shared/$BUNDLE/bin/mien" .build/debug/MienDev >"$WORK/slurm.log" 2>&1 ||
    { tail -20 "$WORK/slurm.log"; fail "the tarball under Slurm"; }
tail -1 "$WORK/slurm.log"

mb() { awk '{printf "%.1f", $1 / 1e6}'; } # sizes in MB of 10^6 bytes, as package indexes and PyPI count them
tar_mb=$(stat -c %s "$TARBALL" | mb)
deb_mb=$(stat -c %s "$DEB" | mb)
wheel_mb=$(stat -c %s "$WHEEL" | mb)
unpacked_mb=$(du -sb "$DIST/$BUNDLE" | cut -f1 | mb)
say "package-check passed in $(($(date +%s) - started)) s"
printf '{"package_check":"passed","tarball_mb":%s,"tarball_unpacked_mb":%s,"deb_mb":%s,"deb_installed_mb":%s,"deb_packages_added":%s,"deb_install_to_first_result_s":%s,"deb_download":"%s","deb_disk_with_dependencies":"%s","image_mb":%s,"image_base_mb":%s,"trixie_glibc":"%s","lintian_warnings":%s,"wheel_mb":%s,"gpl_parts":0,"annotated_clip_kb":%s}\n' \
    "$tar_mb" "$unpacked_mb" "$deb_mb" "$(echo "$((installed_kb * 1024))" | mb)" "$(echo "$added" | wc -l)" "$install_seconds" "$download" "$disk" "$image_mb" "$base_mb" \
    "$glibc" "$lintian_warnings" "$wheel_mb" "$annotated_kb"
