# clipkit: build, test, demo, fixtures and benchmark. `make demo` and `make test` work on a fresh Debian machine.
SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX ?= /usr/local
DEPS := libgif-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libpng-dev pkg-config
BIN := .build/release/clipkit

.PHONY: all deps build test browser-deps demo install fixtures bench clean sanitize fuzz

all: build

# Installs the C libraries' -dev packages when pkg-config (or the giflib header) cannot find them.
deps:
	@missing=""; \
	if ! command -v pkg-config >/dev/null 2>&1; then missing="$(DEPS)"; \
	else \
	  for pc in libavformat libavcodec libswscale libavutil libpng; do \
	    pkg-config --exists $$pc || missing="$(DEPS)"; \
	  done; \
	  [ -f /usr/include/gif_lib.h ] || missing="$(DEPS)"; \
	fi; \
	if [ -z "$$missing" ]; then echo "deps: FFmpeg, giflib and libpng development files found"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "deps: missing development packages; run as root:"; \
	  echo "  apt-get update && apt-get install -y $(DEPS)"; exit 1; \
	fi; \
	echo "deps: installing $(DEPS)"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $(DEPS)

# The Swift runtime linked statically: 20 ms less start-up and about 7 MB less memory per run,
# which is most of a thumbnail's cost.
build: deps
	$(SWIFT) build -c release --product clipkit --static-swift-stdlib

# Warnings are errors: a new warning fails CI. The tests check clipkit's outputs with an
# independent reader, the ffmpeg and ffprobe commands, and measure children with GNU time (both
# installed here when missing).
test: deps
	@command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 && [ -x /usr/bin/time ] || { \
	  if [ "$$(id -u)" != 0 ]; then echo "test: needs ffmpeg and GNU time; run as root: apt-get install -y ffmpeg time"; exit 1; fi; \
	  echo "test: installing ffmpeg (the tests' independent reader) and GNU time (children's peak memory)"; \
	  export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends ffmpeg time; }
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	@# The failures again at the end of the log, where a CI page that shows only the tail sees them.
	@set -o pipefail; $(SWIFT) test --skip-build 2>&1 | tee .build/test.log || { status=$$?; \
	  echo "== make test: failures (from .build/test.log) =="; \
	  grep -a -A4 -E "✘|recorded an issue|error:|Fatal error|Crash" .build/test.log | grep -a -v -E "^◇|passed after" | head -120; \
	  exit $$status; }
	@$(MAKE) --no-print-directory browser-deps
	python3 Tests/Browser/report_browser_test.py "$$($(SWIFT) build --show-bin-path)/clipkit"

# clipkit report's page is tested in a real browser: Debian's chromium and chromium-driver (no
# browser download), selenium from PyPI, PyYAML for the README's workflow examples.
browser-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v chromedriver >/dev/null 2>&1 || missing="$$missing chromium-driver"; \
	python3 -c "import yaml" 2>/dev/null || missing="$$missing python3-yaml"; \
	python3 -m pip --version >/dev/null 2>&1 || python3 -c "import selenium" 2>/dev/null || missing="$$missing python3-pip"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "test: the browser test needs, as root: apt-get install -y$$missing"; exit 1; fi; \
	  echo "test: installing$$missing (the report's browser test)"; \
	  export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	fi; \
	python3 -c "import yaml" 2>/dev/null || python3 -m pip install --quiet pyyaml 2>/dev/null || python3 -m pip install --quiet --break-system-packages pyyaml; \
	python3 -c "import selenium" 2>/dev/null || { echo "test: installing selenium (pip)"; \
	  python3 -m pip install --quiet selenium 2>/dev/null || python3 -m pip install --quiet --break-system-packages selenium; }

# The main job on a bundled clip.
demo: build
	@mkdir -p out
	$(BIN) gif Fixtures/video/motion.mp4 -o out/demo.gif
	$(BIN) thumb Fixtures/video/rotated90.mov -o out/demo.png
	@echo "demo: wrote out/demo.gif (GIF of Fixtures/video/motion.mp4) and out/demo.png (upright thumbnail of a rotated clip)"

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/clipkit

# Regenerates Fixtures/ (needs ffmpeg; never used at test time).
fixtures:
	bash Fixtures/make-fixtures.sh
	bash Fixtures/make-pick-fixtures.sh
	python3 Fixtures/make-bad-fixtures.py
	python3 Fixtures/make-hostile-fixtures.py
	python3 Fixtures/make-ssimulacra2-fixtures.py
	bash Fixtures/make-exact-fixtures.sh
	python3 Fixtures/make-report-fixtures.py

# Side by side with ffmpeg, gifsicle, ImageMagick, ffmpegthumbnailer (installed if missing): writes
# bench/results.md. QUICK=1: one clip per task, one run each.
bench: build
	QUICK="$(QUICK)" bash bench/run.sh

clean:
	rm -rf .build out

# AddressSanitizer and ThreadSanitizer over the test suite, then valgrind over the commands. Every
# stage runs even when an earlier one fails; the exit status says whether any did. The whole suite
# runs under both, the full-disk tests too (their `ulimit -f` children get no TMPDIR, where TSan's
# runtime would write a file that the limit cuts short, then die of SIGBUS reading past its end).
sanitize: deps
	@command -v valgrind >/dev/null || apt-get install -y -qq valgrind
	@status=0; \
	CLIPKIT_SANITIZER=address LSAN_OPTIONS=suppressions=$(CURDIR)/.lsan-suppressions:print_suppressions=0 $(SWIFT) test --sanitize=address --scratch-path .build-asan || status=1; \
	CLIPKIT_SANITIZER=thread $(SWIFT) test --sanitize=thread --scratch-path .build-tsan || status=1; \
	$(SWIFT) build -c release --product clipkit --static-swift-stdlib && bash Fixtures/valgrind-check.sh $(BIN) || status=1; \
	if [ $$status = 0 ]; then echo "sanitize: all stages passed"; else echo "sanitize: a stage failed (see above)"; fi; \
	exit $$status

# libFuzzer over the GIF decoder, the manifest/PNG readers, the video demux/decode path, the LZW
# encoder and the standard-input path (a pipe spooled, then thumbnailed as `thumb -` does), seeded
# from the fixtures (the manifest corpus with real frames.json files from Fixtures/fuzz/manifests,
# the video corpus with the clips of Fixtures/video and Fixtures/bad up to 20 KB).
# FUZZ_TIME seconds each (default 600). Crashes land in Fuzz/artifacts/; keep each one as a
# regression fixture in Fixtures/fuzz/ (the tests run the decoders over that folder).
FUZZ_TIME ?= 600
fuzz: deps
	CLIPKIT_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz --product GIFDecoderFuzz
	CLIPKIT_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz --product ManifestFuzz
	CLIPKIT_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz --product VideoDecodeFuzz
	CLIPKIT_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz --product LZWEncodeFuzz
	CLIPKIT_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz --product StdinFuzz
	mkdir -p Fuzz/corpus/gif Fuzz/corpus/manifest Fuzz/corpus/video Fuzz/corpus/lzw Fuzz/corpus/stdin Fuzz/artifacts
	cp -n Fixtures/gif/*.gif Fixtures/gif-test-suite/gifs/*.gif Fixtures/fuzz/*.gif Fuzz/corpus/gif/ 2>/dev/null || true
	cp -n Fixtures/gif/expected/*.png Fixtures/video/still.png Fixtures/fuzz/manifests/*.json Fuzz/corpus/manifest/ 2>/dev/null || true
	find Fixtures/video Fixtures/bad -maxdepth 1 -type f -size -20k ! -name '*.md' -exec cp -n {} Fuzz/corpus/video/ \;
	for f in Fuzz/corpus/video/* Fixtures/gif/*.gif; do [ -e "Fuzz/corpus/stdin/$${f##*/}" ] || { printf '\x07'; cat "$$f"; } > "Fuzz/corpus/stdin/$${f##*/}"; done
	.build-fuzz/debug/GIFDecoderFuzz Fuzz/corpus/gif -max_total_time=$(FUZZ_TIME) -max_len=8192 -artifact_prefix=Fuzz/artifacts/gif- -print_final_stats=1
	.build-fuzz/debug/ManifestFuzz Fuzz/corpus/manifest -max_total_time=$(FUZZ_TIME) -max_len=8192 -artifact_prefix=Fuzz/artifacts/manifest- -print_final_stats=1
	.build-fuzz/debug/VideoDecodeFuzz Fuzz/corpus/video -max_total_time=$(FUZZ_TIME) -max_len=20480 -timeout=20 -artifact_prefix=Fuzz/artifacts/video- -print_final_stats=1
	.build-fuzz/debug/LZWEncodeFuzz Fuzz/corpus/lzw -max_total_time=$(FUZZ_TIME) -max_len=4096 -artifact_prefix=Fuzz/artifacts/lzw- -print_final_stats=1
	.build-fuzz/debug/StdinFuzz Fuzz/corpus/stdin -max_total_time=$(FUZZ_TIME) -max_len=20480 -timeout=20 -artifact_prefix=Fuzz/artifacts/stdin- -print_final_stats=1
