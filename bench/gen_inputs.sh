#!/usr/bin/env bash
# Generates the benchmark's input clips with ffmpeg's test sources into bench/cache/.
# Usage: bash bench/gen_inputs.sh [quick]
#   quick: only what `make bench QUICK=1` uses (the 10 s 720p clip, the 30 s 1080p B-frame clip and the
#   50 batch clips).
# Clips are made once and kept; a change of GEN_VERSION below (or a missing file) remakes them.
# Each file is written under a temporary name and renamed when complete.
set -euo pipefail
exec >&2  # progress only: stdout is left to the results table

GEN_VERSION=4
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/cache"
mkdir -p "$cache"

if [ "$(cat "$cache/inputs.version" 2>/dev/null || true)" != "$GEN_VERSION" ]; then
    echo "bench: (re)making input clips in bench/cache/"
    find "$cache" -mindepth 1 -delete
    echo "$GEN_VERSION" >"$cache/inputs.version"
fi

FF=(ffmpeg -hide_banner -loglevel error -nostdin -y)

# The picture: ffmpeg's testsrc2 (moving bars, a moving line, counters, a chequerboard) averaged with
# a slowly turning spiral gradient (smooth colour ramps over the whole frame), plus light temporal
# grain as in real camera footage.
# scene W H FPS SECONDS SEED [GRAIN] -> a filter graph with one output (GRAIN: noise strength, default 4)
scene() {
    local w=$1 h=$2 r=$3 d=$4 seed=$5 grain=${6:-4}
    # (the gradient is drawn at a quarter of the size and scaled up: it is smooth, and ffmpeg's spiral
    # gradient source is slow at full size)
    echo "testsrc2=s=${w}x${h}:r=${r}:d=${d}[t];gradients=s=$((w / 4))x$((h / 4)):r=${r}:d=${d}:c0=0x1e3c72:c1=0xf7b733:c2=0xfc4a1a:c3=0x2a9d8f:n=4:speed=0.03:seed=${seed}:type=spiral,scale=${w}:${h}:flags=bicubic[g];[t][g]blend=all_mode=average,noise=alls=${grain}:allf=t+u:all_seed=${seed}"
}

# make OUT COMMAND...: runs COMMAND with the placeholder @OUT@ replaced by a temporary path, then renames.
make_file() {
    local out=$1; shift
    [ -s "$out" ] && return 0
    local tmp="${out%.*}.part.${out##*.}"
    local args=() a
    for a in "$@"; do args+=("${a//@OUT@/$tmp}"); done
    local t0=$SECONDS
    "${args[@]}"
    mv -f "$tmp" "$out"
    echo "bench: made ${out#"$here"/} ($((SECONDS - t0)) s)"
}

X264=(-c:v libx264 -preset veryfast -crf 20 -g 60 -pix_fmt yuv420p -movflags +faststart)

# 10 s 1280x720 30 fps H.264
make_file "$cache/src10_720p.mp4" "${FF[@]}" -filter_complex "$(scene 1280 720 30 10 7)" "${X264[@]}" @OUT@

# 50 short clips (2 s, 640x360, each a different gradient) for batch thumbnails
mkdir -p "$cache/batch"
for i in $(seq -w 0 49); do
    make_file "$cache/batch/clip_$i.mp4" "${FF[@]}" -filter_complex "$(scene 640 360 30 2 $((100 + 10#$i)))" \
        -c:v libx264 -preset ultrafast -crf 23 -g 30 -pix_fmt yuv420p @OUT@ >/dev/null
done
echo "bench: batch clips ready (50)"

# 30 s 1920x1080 30 fps H.264 with B-frames, for the decode-limit row (clipkit gif --fps 10 against a full
# decode): -bf 3 with x264's default b-pyramid (normal), so of each run of three B-frames the middle one is a
# reference frame and only the outer two are disposable. Half the grain of the other clips: with alls=4 x264's
# adaptive B-frame choice picks P-frames about half the time; with 2, about 80% of the frames between two
# P-frames come as runs of three B-frames, as in ordinary footage. About 9 MB (2.5 Mbit/s).
make_file "$cache/src30_1080p_bf3.mp4" "${FF[@]}" -filter_complex "$(scene 1920 1080 30 30 23 2)" \
    -c:v libx264 -preset veryfast -crf 26 -bf 3 -g 60 -pix_fmt yuv420p -movflags +faststart @OUT@

[ "${1:-}" = quick ] && exit 0

# 60 s 1920x1080 30 fps H.264
make_file "$cache/src60_1080p.mp4" "${FF[@]}" -filter_complex "$(scene 1920 1080 30 60 7)" "${X264[@]}" @OUT@

# 5 s 1280x720 H.264 in a .mov whose display matrix rotates it 90 degrees (stream copy with a rotate tag:
# how ffmpeg writes a display matrix; which sign it gives the tag varies by version, any nonzero rotation will do).
make_file "$cache/plain_5s.mp4" "${FF[@]}" -filter_complex "$(scene 1280 720 30 5 11)" "${X264[@]}" @OUT@
make_file "$cache/rotated90.mov" "${FF[@]}" -i "$cache/plain_5s.mp4" -map 0:v -c copy -metadata:s:v:0 rotate=90 @OUT@
rot=$(ffprobe -v error -select_streams v:0 -show_entries stream_side_data=rotation -of csv=p=0 "$cache/rotated90.mov" | head -n1)
[ -n "$rot" ] && [ "${rot%%.*}" != 0 ] || { echo "bench: this ffmpeg wrote no display matrix into rotated90.mov" >&2; exit 1; }

# 7 s 1280x720 variable frame rate .mkv: 30 fps for 2 s, 12 fps for 3 s, 60 fps for 2 s
make_file "$cache/vfr.mkv" "${FF[@]}" \
    -filter_complex "$(scene 1280 720 60 7 13),select='lt(t\,2)*not(mod(n\,2))+between(t\,2\,4.999)*not(mod(n\,5))+gte(t\,5)'" \
    -fps_mode vfr -c:v libx264 -preset veryfast -crf 20 -g 60 -pix_fmt yuv420p @OUT@

# 5 s 1280x720 10-bit HEVC
make_file "$cache/hevc10.mp4" "${FF[@]}" -filter_complex "$(scene 1280 720 30 5 17)" \
    -c:v libx265 -preset ultrafast -crf 24 -pix_fmt yuv420p10le -tag:v hvc1 -x265-params log-level=error \
    -movflags +faststart @OUT@

# 5 s 1280x720 VP9 .webm
make_file "$cache/vp9.webm" "${FF[@]}" -filter_complex "$(scene 1280 720 30 5 19)" \
    -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -row-mt 1 -b:v 3M -g 60 -pix_fmt yuv420p @OUT@

echo "bench: all input clips ready"
