#!/usr/bin/env bash
# Makes the fixtures of `clipkit thumb --pick best` in Fixtures/video/ (run: make fixtures).
# Needs ffmpeg with libx264. Only used to MAKE fixtures; the tests never run ffmpeg.
#
# pick.mp4 and pick_onekey.mp4: the same 12 s, 256x144, 10 fps picture, made to be a bad first frame and
# a bad poster for most of its length, with the good part at the end:
#   0-1 s   black leader
#   1-2 s   fade in (from black) to a title card
#   2-4 s   the title card: flat dark blue with four small white boxes standing for letters
#   4-6 s   testsrc2, heavily blurred (gblur sigma 6)
#   6-9 s   testsrc2, sharp (its moving parts and counters change the picture a little)
#   9-12 s  a Mandelbrot zoom, sharp and detailed (the picture changes a lot)
# pick.mp4 has a keyframe every second (GOP 10, no scene-cut keyframes): the keyframe candidates suffice.
# pick_onekey.mp4 has one keyframe (GOP 1000): the picker falls back to sampling decoded frames.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/video"
mkdir -p "$out"
command -v ffmpeg >/dev/null 2>&1 || { echo "make-pick-fixtures: ffmpeg not found" >&2; exit 1; }

FF=(ffmpeg -hide_banner -loglevel error -nostdin -y)
BITEXACT=(-fflags +bitexact -flags +bitexact -map_metadata -1)
S=256x144
R=10
box() { echo "drawbox=x=$1:y=62:w=$2:h=20:color=white:t=fill"; }
TITLE="color=c=0x203a70:s=$S:r=$R:d=3,$(box 88 12),$(box 106 12),$(box 124 12),$(box 142 26),fade=t=in:st=0:d=1"
# A zoom towards a point on the set's edge (stopped halfway: deeper, 150 iterations go flat).
ZOOM="mandelbrot=s=$S:r=$R:maxiter=150:outer=normalized_iteration_count:start_scale=3:end_scale=0.3:end_pts=6:start_x=-0.743643887037158704752191506114774:start_y=-0.131825904205311970493132056385139,trim=duration=3"

make() {  # make NAME GOP
    "${FF[@]}" -f lavfi -i "color=c=black:s=$S:r=$R:d=1" -f lavfi -i "$TITLE" \
        -f lavfi -i "testsrc2=s=$S:r=$R:d=2,gblur=sigma=6" -f lavfi -i "testsrc2=s=$S:r=$R:d=3" -f lavfi -i "$ZOOM" \
        -filter_complex "[0][1][2][3][4]concat=n=5:v=1:a=0,format=yuv420p" \
        -c:v libx264 -threads 1 -preset medium -crf 34 -g "$2" -keyint_min "$2" -sc_threshold 0 \
        "${BITEXACT[@]}" -movflags +faststart "$out/$1"
    printf 'make-pick-fixtures: wrote %-18s %7d bytes (GOP %s)\n' "$1" "$(stat -c %s "$out/$1")" "$2"
}

make pick.mp4 10
make pick_onekey.mp4 1000
