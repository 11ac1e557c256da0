#!/usr/bin/env bash
# Runs clipkit's commands on the fixtures under valgrind: no definite leaks, no invalid reads or writes.
set -euo pipefail
bin=$(realpath "${1:?usage: valgrind-check.sh path/to/clipkit}")
fixtures=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
check() {
    local expected=$1; shift
    local code=0
    valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
        --suppressions="$fixtures/valgrind.supp" \
        "$bin" "$@" >"$work/log" 2>&1 || code=$?
    if [ "$code" != "$expected" ]; then
        echo "FAIL (exit $code): clipkit $*"; cat "$work/log"; status=1
    else
        echo "ok   (exit $code): clipkit $*"
    fi
}
cd "$work"
check 0 thumb "$fixtures/video/rotated90.mov" -o t.png
check 0 thumb "$fixtures/video/counter.mp4" --at 2.5 --skip-black -o t2.png
check 0 gif "$fixtures/video/vfr.mkv" -o g.gif -q
check 0 gif "$fixtures/video/motion.mp4" --fps 5 --palette global -o g2.gif -q
check 0 explode "$fixtures/gif-test-suite/gifs/animated_transparent_frame_restoreprev_loop.gif" -o ex
check 0 explode "$fixtures/video/vp9.webm" -o ex2
check 0 info "$fixtures/video/hevc10.mp4" "$fixtures/gif/truncated.gif"
check 0 thumb "$fixtures/gif-test-suite/gifs/animated_transparent_loop.gif" -o g.png
check 0 gif "$fixtures/gif-test-suite/gifs/animated_loop_variable_delay.gif" -o g3.gif -q
# --poster: the tee and poster stages beside decode and quantise, from one decode; both files written.
check 0 gif "$fixtures/video/rotated90.mov" --poster p.png -o g4.gif -q
if [ ! -s p.png ] || [ ! -s g4.gif ]; then echo "FAIL: gif --poster wrote no p.png or g4.gif"; status=1; fi
# ...and a run that fails part-way (--max-frames) with the poster stage running: every stage stops, nothing leaks.
check 1 gif "$fixtures/video/counter.mp4" --poster bad-poster.png --max-frames 3 -o bad-poster.gif
if [ -e bad-poster.png ] || [ -e bad-poster.gif ]; then echo "FAIL: a failed gif --poster left output"; status=1; fi
check 1 thumb "$fixtures/video/truncated.mp4" -o bad.png
check 1 gif "$fixtures/video/audio_only.m4a" -o bad.gif
check 1 explode "$fixtures/gif/bad_lzw_first.gif" -o bad
exit $status
