#!/usr/bin/env bash
# make fleet-check: one study on three `mien serve` sharing it through PostgreSQL, behind HAProxy, on loopback.
#
# Installs Debian's haproxy (and PostgreSQL 15, which make deps installs too) when missing, then runs
# `MienDev fleet`: a PostgreSQL of its own (initdb in a temporary folder), `mien study init --store`, three replicas
# (two on one study folder, the third given only the database's URL), HAProxy in front (round robin, no affinity, /readyz as the health check), a burst of 40
# simulated participants (consent, the stimulus's socket with JPEG frames on its media time, the end, completion)
# for 36 places, and the first replica SIGKILLed mid-stimulus. It fails unless every participant is numbered once,
# the groups are within 1, the cap holds and fills, the killed replica's participants are marked incomplete
# (serverStopped) within 30 s and every other one is complete with a code of their own, every replica's dashboard
# shows everyone, the results exported from the database are the bytes of the files the servers wrote, `mien study`
# on the database equals `mien study` on its export, and an erasure leaves no row, file or listing. Everything it started is stopped by its PID.
#
# The debug build analyses fewer frames than a release one, and three replicas share two cores here: the study's
# --min-share is lowered to 0.2 so that the check is about the fleet, not about capacity (make bench-fleet).
#
# Usage: scripts/fleet-check.sh [path/to/mien [path/to/MienDev [MienDev fleet's options]]]   (defaults: the debug
# builds, --min-share 0.2; make bench-fleet gives the release builds and its own options)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIEN=$(realpath "${1:-$ROOT/.build/debug/mien}")
MIENDEV=$(realpath "${2:-$ROOT/.build/debug/MienDev}")
shift $(($# < 2 ? $# : 2))
[ $# -gt 0 ] || set -- --min-share 0.2
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

missing=()
[ -x /usr/sbin/haproxy ] || missing+=(haproxy)
# nginx for make fleet-check's fleet-faults seed behind nginx (deploy/balancer/nginx.conf).
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing+=(postgresql-15)
if [ ${#missing[@]} -gt 0 ]; then
    echo "fleet-check: installing ${missing[*]}"
    $SUDO apt-get update -qq
    # Debian's own haproxy service, where the package starts one, listens nowhere (its configuration has no frontend).
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Debian's nginx service, where the package starts one, serves its default site on port 80: stopped by its PID.
    if [ -s /run/nginx.pid ]; then $SUDO kill "$(cat /run/nginx.pid)" 2>/dev/null || true; fi
fi
cd "$ROOT"
started=$(date +%s)
"$MIENDEV" fleet --mien "$MIEN" "$@"
echo "fleet-check: passed in $(($(date +%s) - started)) s"
