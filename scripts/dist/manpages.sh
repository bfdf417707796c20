#!/usr/bin/env bash
# `make manpages`: mien.1 and a page per subcommand (mien.analyze.1, ...) from the command's own definition, by
# swift-argument-parser's generate-manual plugin (on the debug build `make test` already made), into OUT_DIR.
#
# One fix afterwards: the plugin names a subcommand's page `mien.analyze` but writes `.Nm "mien analyze"` in its
# NAME section, which man-db's whatis parser (lexgrog) cannot read (lintian: bad-whatis-entry), so `man -k`
# and `apropos` would not find it. NAME gets the page's name; SYNOPSIS still shows the command as typed.
# Usage: manpages.sh OUT_DIR
set -euo pipefail
OUT=${1:?usage: manpages.sh OUT_DIR}
SWIFT=${SWIFT:-swift}
date=$(git log -1 --format=%cs 2>/dev/null || date +%F)
$SWIFT package --allow-writing-to-package-directory generate-manual --configuration debug --multi-page \
    --authors "The Mien authors" --date "$date" >/dev/null
rm -rf "$OUT" && mkdir -p "$OUT"
cp .build/plugins/GenerateManual/outputs/MienCLI/*.1 "$OUT/"  # the folder is named after the target (MienCLI)
python3 - "$OUT" <<'PY'
import pathlib, re, sys
for page in pathlib.Path(sys.argv[1]).glob("mien.*.1"):
    sub = page.name[len("mien."):-len(".1")]
    typed = sub.replace(".", " ")  # mien.study.init.1 documents `mien study init`
    text = page.read_text()
    text = text.replace(f'.Nm "mien {typed}"', f".Nm mien.{sub}", 1)
    # In SYNOPSIS a bare .Nm would now print "mien.analyze": name the command as it is typed.
    text = re.sub(r"(\.Sh SYNOPSIS\n)\.Nm\n", rf'\1.Nm "mien {typed}"\n', text, count=1)
    page.write_text(text)
PY
if command -v lexgrog >/dev/null; then
    for page in "$OUT"/*.1; do lexgrog "$page" >/dev/null || { echo "manpages: whatis cannot parse $page" >&2; exit 1; }; done
fi
echo "manpages: $(ls "$OUT" | tr '\n' ' ')"
