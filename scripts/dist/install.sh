#!/usr/bin/env bash
# `make install` / `make uninstall`: the bundle's layout under DESTDIR/PREFIX, and a list of what was installed
# (PREFIX/share/mien/installed-files) so that uninstall removes exactly that and nothing else.
# Usage: install.sh install BUNDLE_DIR DESTDIR PREFIX | install.sh uninstall - DESTDIR PREFIX
set -euo pipefail
action=${1:?usage: install.sh install|uninstall BUNDLE_DIR DESTDIR PREFIX}
bundle=$2
root=${3%/}${4:?PREFIX is empty}
list=$root/share/mien/installed-files

case "$action" in
install)
    [ -x "$bundle/bin/mien" ] || { echo "install: no bundle at $bundle (make dist)" >&2; exit 1; }
    [ -f "$list" ] && "$0" uninstall - "$3" "$4"
    (cd "$bundle" && find . \( -type f -o -type l \) -printf '%P\n' | sort) >"${TMPDIR:-/tmp}/mien-install.$$"
    while read -r file; do
        install -D -m "$(stat -c %a "$bundle/$file")" "$bundle/$file" "$root/$file"
    done <"${TMPDIR:-/tmp}/mien-install.$$"
    { cat "${TMPDIR:-/tmp}/mien-install.$$"; echo share/mien/installed-files; } >"$list"
    rm -f "${TMPDIR:-/tmp}/mien-install.$$"
    echo "installed $(wc -l <"$list") files under $root ($root/bin/mien); uninstall with: make uninstall PREFIX=$4${3:+ DESTDIR=$3}"
    ;;
uninstall)
    [ -f "$list" ] || { echo "uninstall: nothing installed under $root (no $list)"; exit 0; }
    n=0
    while read -r file; do
        [ -n "$file" ] && [ "$file" != share/mien/installed-files ] && rm -f "$root/$file" && n=$((n + 1))
    done <"$list"
    rm -f "$list"
    # Folders that only Mien's files were in (bin and share/man stay when anything else is in them).
    (cd "$root" && find lib/mien share/mien share/doc/mien share/man share/bash-completion share/zsh share/fish bin \
        -depth -type d -empty -delete 2>/dev/null) || true
    echo "removed $n files from $root"
    ;;
*) echo "install.sh: unknown action $action" >&2; exit 64 ;;
esac
