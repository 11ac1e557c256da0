#!/usr/bin/env bash
# clipkit benchmark: clipkit side by side with ffmpeg, gifsicle, ImageMagick and ffmpegthumbnailer.
#   make bench            full run (3 runs per tool, all clips), writes bench/results.md
#   make bench QUICK=1    one clip per task, one run each, writes bench/cache/results-quick.md
# Both have a rate-distortion section (bytes vs SSIM of GIF size settings: a table and bench/rd.png,
# QUICK: bench/cache/rd-quick.png) and end with the start-up rows (clipkit --version, an up-to-date thumb: 30 runs each, QUICK too).
# Run through make (which builds the release binary first), or after `make build`: bash bench/run.sh
# Installs the peer tools (Debian packages) and numpy/Pillow (matplotlib: optional) when missing; the bench is the only place
# they are used. Input clips are generated into bench/cache/ (not committed) and reused.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=""
case "${QUICK:-}" in "" | 0 | no | false) ;; *) quick=1 ;; esac

apt_install() {
    if [ "$(id -u)" != 0 ]; then
        echo "bench: missing $*; run as root:" >&2
        echo "  apt-get update && apt-get install -y $*" >&2
        exit 1
    fi
    echo "bench: installing $*"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing=()
{ command -v ffmpeg && command -v ffprobe; } >/dev/null 2>&1 || missing+=(ffmpeg)
command -v gifsicle >/dev/null 2>&1 || missing+=(gifsicle)
# ImageMagick's own binary: a `convert` found earlier on PATH is not necessarily ImageMagick
[ -x /usr/bin/convert ] || missing+=(imagemagick)
command -v ffmpegthumbnailer >/dev/null 2>&1 || missing+=(ffmpegthumbnailer)
[ -x /usr/bin/time ] || missing+=(time)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

if ! python3 -c "import numpy, PIL" 2>/dev/null; then
    echo "bench: installing numpy and Pillow"
    python3 -m pip install --quiet numpy pillow 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages numpy pillow 2>/dev/null ||
        apt_install python3-numpy python3-pil
    python3 -c "import numpy, PIL" || { echo "bench: numpy and Pillow are needed" >&2; exit 1; }
fi

# matplotlib draws the rate-distortion plot (bench/rd.png); without it bench.py draws it with Pillow
if ! python3 -c "import matplotlib" 2>/dev/null; then
    echo "bench: installing matplotlib (for the rate-distortion plot)"
    python3 -m pip install --quiet matplotlib 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages matplotlib 2>/dev/null ||
        echo "bench: no matplotlib; the plot is drawn with Pillow" >&2
fi

# SSIMULACRA2 (PyPI ssimulacra2), libimagequant (PyPI imagequant, an anchor) and scikit-image (its bundled
# photographs make the natural clip) for the issue-20 rate-distortion section (bench/rd_sweep20.py)
if ! python3 -c "import ssimulacra2, imagequant, skimage, scipy" 2>/dev/null; then
    echo "bench: installing ssimulacra2, imagequant and scikit-image"
    python3 -m pip install --quiet ssimulacra2 imagequant scikit-image 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages ssimulacra2 imagequant scikit-image 2>/dev/null ||
        echo "bench: no ssimulacra2/imagequant/scikit-image: the SSIMULACRA2 section is skipped" >&2
fi

if [ ! -x .build/release/clipkit ]; then
    echo "bench: no release build; run: make bench (or make build first)" >&2
    exit 1
fi

echo "bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
bash bench/gen_inputs.sh ${quick:+quick}
mkdir -p bench/cache
python3 bench/report.py .build/release/clipkit > bench/cache/report.md || echo "bench: the report rows failed (bench/report.py)" >&2
python3 bench/bench.py ${quick:+--quick}
# clipkit report (issue 21): its rows, measured above, after bench.py has written results.md
[ -s bench/cache/report.md ] && { echo; echo "## clipkit report"; echo; cat bench/cache/report.md; } >>bench/results.md
# issue 20: bytes vs SSIMULACRA2 on 3 s cuts of four clips (writes bench/cache/rd20.md and bench/rd20.png)
if [ -z "$quick" ] && python3 -c "import ssimulacra2, imagequant, skimage" 2>/dev/null; then
    python3 bench/rd_sweep20.py --clipkit .build/release/clipkit >/dev/null &&
        { echo; echo "## Issue 20: SSIMULACRA2 rate-distortion"; echo; tail -n +2 bench/cache/rd20.md; } >>bench/results.md
fi
