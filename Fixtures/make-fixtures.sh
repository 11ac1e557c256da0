#!/usr/bin/env bash
# Regenerates the video fixtures in Fixtures/video/ (run: make fixtures).
# Needs ffmpeg/ffprobe (libx264, libx265, libvpx, native aac) and python3.
# Only used to MAKE fixtures; the tests never run ffmpeg.
# See Fixtures/README.md for what each file is and which properties tests rely on.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/video"
helper="$here/make_fixtures_helper.py"
mkdir -p "$out"

for tool in ffmpeg ffprobe python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "make-fixtures: $tool not found" >&2; exit 1; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Common flags: quiet, overwrite, no stdin, bit-exact muxing (no encoder
# string / creation time), no metadata copied from inputs.
FF=(ffmpeg -hide_banner -loglevel error -nostdin -y)
BITEXACT=(-fflags +bitexact -flags +bitexact -map_metadata -1)
# BT.601 limited range, explicit so rgb -> yuv is always the same matrix.
TO_YUV="scale=out_color_matrix=bt601:out_range=tv:flags=bicubic,format=yuv420p"
TAG601=(-colorspace smpte170m -color_primaries smpte170m -color_trc smpte170m -color_range tv)
X264=(-c:v libx264 -threads 1 -preset medium)

say() { printf 'make-fixtures: wrote %-26s %7d bytes  (%s)\n' "$1" "$(stat -c %s "$out/$1")" "$2"; }

# Writes rgb24 frames from the helper into an H.264 file.
#   raw_h264 MODE W H FRAMES RATE OUTFILE [extra ffmpeg output options...]
raw_h264() {
    local mode=$1 w=$2 h=$3 n=$4 rate=$5 dest=$6
    shift 6
    python3 "$helper" "$mode" "$w" "$h" "$n" |
        "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size "${w}x${h}" -framerate "$rate" -i pipe:0 \
            -vf "$TO_YUV" "${X264[@]}" "${TAG601[@]}" "${BITEXACT[@]}" "$@" "$dest"
}

# 1. counter.mp4: 120 solid frames encoding their index, 30 fps CFR, GOP 30.
raw_h264 counter 160 120 120 30 "$out/counter.mp4" \
    -crf 10 -g 30 -keyint_min 30 -sc_threshold 0 -r 30 -movflags +faststart
say counter.mp4 "H.264 160x120 30fps 120 frames, colour-coded"

# 2. offset.mp4: 60 colour-coded frames, video start_time 1.5 s.
raw_h264 counter 160 120 60 30 "$out/offset.mp4" \
    -crf 10 -g 30 -keyint_min 30 -sc_threshold 0 -r 30 -output_ts_offset 1.5 -movflags +faststart
say offset.mp4 "H.264 160x120 30fps 60 frames, start 1.5 s"

# 3. rotated{90,180,270}.mov: quadrants 320x240 stored; the display matrix says
#    "rotate N degrees clockwise", which ffprobe prints as rotation=-N (mod 360).
#    The sign ffmpeg gives the `rotate` tag differs between versions (5.1 writes
#    rotate=90 as 90 counter-clockwise), so try the tag both ways and keep the
#    one whose display matrix ffprobe reads back correctly.
raw_h264 quadrants 320 240 30 30 "$tmp/quadrants.mp4" -crf 10 -g 30
probe_rotation() {  # prints the display-matrix rotation, normalised to 0..359
    local r
    r=$(ffprobe -v error -select_streams v:0 -show_entries stream_side_data=rotation -of csv=p=0 "$1" | head -n1)
    r=${r%%.*}
    echo $(( ((${r:-0} % 360) + 360) % 360 ))
}
for cw in 90 180 270; do
    want=$(( (360 - cw) % 360 ))
    ok=""
    for tag in "$cw" "$(( (360 - cw) % 360 ))"; do
        "${FF[@]}" -i "$tmp/quadrants.mp4" -map 0:v -c copy "${BITEXACT[@]}" \
            -metadata:s:v:0 rotate="$tag" "$out/rotated$cw.mov"
        if [ "$(probe_rotation "$out/rotated$cw.mov")" = "$want" ]; then ok=$tag; break; fi
    done
    [ -n "$ok" ] || { echo "make-fixtures: cannot write a ${cw} degree display matrix with this ffmpeg" >&2; exit 1; }
    say "rotated$cw.mov" "H.264 320x240 quadrants, ${cw} cw (rotate tag $ok)"
done

# 4. vp9.webm
"${FF[@]}" -f lavfi -i "testsrc2=size=160x120:rate=25:duration=1" \
    -c:v libvpx-vp9 -threads 1 -row-mt 0 -deadline good -cpu-used 4 -b:v 0 -crf 40 -g 25 \
    -pix_fmt yuv420p "${BITEXACT[@]}" "$out/vp9.webm"
say vp9.webm "VP9 160x120 25fps 1 s"

# 5. hevc10.mp4
"${FF[@]}" -f lavfi -i "testsrc2=size=160x120:rate=25:duration=1" \
    -c:v libx265 -preset medium -crf 28 -pix_fmt yuv420p10le -tag:v hvc1 \
    -x265-params "log-level=error:pools=none:frame-threads=1" \
    "${BITEXACT[@]}" -movflags +faststart "$out/hevc10.mp4"
say hevc10.mp4 "HEVC Main10 160x120 25fps 1 s, hvc1"

# 6. black_start.mp4: 1 s pure black, then 2 s testsrc2.
"${FF[@]}" -f lavfi -i "testsrc2=size=160x120:rate=25:duration=3" \
    -vf "drawbox=x=0:y=0:w=iw:h=ih:color=black:t=fill:enable='lt(t,1)',format=yuv420p" \
    "${X264[@]}" -crf 18 "${TAG601[@]}" "${BITEXACT[@]}" -movflags +faststart "$out/black_start.mp4"
say black_start.mp4 "H.264 160x120 25fps 3 s, first 1 s black"

# 7. vfr.mkv: 10 colour-coded frames at fixed, irregular times (ms, 1/1000
#    time base, so no float rounding); the last frame lasts 0.1 s -> ends at 2.0 s.
vfr_ms="0,100,200,500,600,1000,1100,1200,1500,1900"
vfr_expr="$(python3 "$helper" vfr_setpts "$vfr_ms")"
python3 "$helper" counter 160 120 10 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 160x120 -framerate 10 -i pipe:0 \
        -vf "settb=1/1000,setpts=$vfr_expr,$TO_YUV" -fps_mode passthrough -enc_time_base 1/1000 \
        "${X264[@]}" -crf 10 "${TAG601[@]}" "${BITEXACT[@]}" "$out/vfr.mkv"
say vfr.mkv "H.264 VFR, pts ms $vfr_ms"

# 8. audio_only.m4a
"${FF[@]}" -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=1" \
    -c:a aac -b:a 64k -ac 1 "${BITEXACT[@]}" -movflags +faststart "$out/audio_only.m4a"
say audio_only.m4a "AAC 440 Hz mono 1 s, no video"

# 9/10. truncated*.mp4: the same 2 s clip, moov at end vs. faststart.
"${FF[@]}" -f lavfi -i "testsrc2=size=160x120:rate=25:duration=2" -pix_fmt yuv420p \
    "${X264[@]}" -crf 23 "${BITEXACT[@]}" "$tmp/moov_end.mp4"
"${FF[@]}" -i "$tmp/moov_end.mp4" -map 0:v -c copy "${BITEXACT[@]}" -movflags +faststart "$tmp/moov_start.mp4"
size=$(stat -c %s "$tmp/moov_end.mp4")
head -c $((size / 2)) "$tmp/moov_end.mp4" >"$out/truncated.mp4"
say truncated.mp4 "moov at end, cut to 50% of $size bytes"
size=$(stat -c %s "$tmp/moov_start.mp4")
head -c $((size * 60 / 100)) "$tmp/moov_start.mp4" >"$out/truncated_faststart.mp4"
say truncated_faststart.mp4 "faststart, cut to 60% of $size bytes"

# 11. not_video.mp4
printf 'this is not a video\n' >"$out/not_video.mp4"
say not_video.mp4 "plain text"

# 12. motion.mp4 (GIF tests)
"${FF[@]}" -f lavfi -i "testsrc2=size=320x180:rate=30:duration=3" -pix_fmt yuv420p \
    "${X264[@]}" -crf 23 "${BITEXACT[@]}" -movflags +faststart "$out/motion.mp4"
say motion.mp4 "H.264 320x180 30fps 3 s, moving testsrc2"

# 13. still.png / still.jpg
"${FF[@]}" -f lavfi -i "testsrc2=size=64x48:rate=1" -frames:v 1 "${BITEXACT[@]}" \
    -pix_fmt rgb24 -update 1 "$out/still.png"
say still.png "64x48 PNG"
"${FF[@]}" -f lavfi -i "testsrc2=size=64x48:rate=1" -frames:v 1 "${BITEXACT[@]}" \
    -pix_fmt yuvj420p -q:v 2 -update 1 "$out/still.jpg"
say still.jpg "64x48 JPEG"

# 14. anamorphic.mp4: 120x120 stored, pixels 16:9 wide (SAR in the H.264 VUI and the pasp box)
"${FF[@]}" -f lavfi -i "testsrc2=size=120x120:rate=10:duration=1" -vf setsar=16/9 -pix_fmt yuv420p \
    "${X264[@]}" -crf 20 "${BITEXACT[@]}" -movflags +faststart "$out/anamorphic.mp4"
say anamorphic.mp4 "H.264 120x120, SAR 16:9: shown 213x120"

# 15. alpha.mov: QuickTime Animation (qtrle, argb) 96x64: transparent, an opaque red 40x24 box at (20,16)
"${FF[@]}" -f lavfi -i "color=c=red:s=40x24:r=10:d=1,format=rgba[b];color=c=black@0.0:s=96x64:r=10:d=1,format=rgba[a];[a][b]overlay=20:16:format=auto,format=rgba" \
    -c:v qtrle "${BITEXACT[@]}" "$out/alpha.mov"
say alpha.mov "qtrle argb 96x64, 10 frames: transparent with an opaque red box"

# 16. rotated90_scaled.mov: rotated90.mov with a movie matrix that also scales x by 2
python3 - "$out/rotated90.mov" "$out/rotated90_scaled.mov" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"mvhd") - 4
assert at >= 0 and data[at + 8] == 0, "version-0 mvhd expected"
struct.pack_into(">i", data, at + 44, 0x00020000)  # matrix a = 2.0
open(sys.argv[2], "wb").write(data)
PY
say rotated90_scaled.mov "rotated90.mov, movie matrix scales x by 2 (still a 90 degree turn)"

# 17. fragmented_open.mp4: counter.mp4 as fragmented MP4 (empty moov, fragments), with the
# "unknown" 0xFFFFFFFF duration in mvhd, tkhd and mdhd as MediaRecorder and live packagers write
"${FF[@]}" -i "$out/counter.mp4" -c copy "${BITEXACT[@]}" -movflags frag_keyframe+empty_moov+default_base_moof "$tmp/frag.mp4"
python3 - "$tmp/frag.mp4" "$out/fragmented_open.mp4" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
for box in (b"mvhd", b"tkhd", b"mdhd"):
    at = data.find(box)
    assert at > 0 and data[at + 4] == 0, "version-0 box expected"
    data[at + 20:at + 24] = b"\xff\xff\xff\xff"  # duration, after version/flags and two times (or times + id)
open(sys.argv[2], "wb").write(data)
PY
say fragmented_open.mp4 "fragmented counter.mp4, header durations 0xFFFFFFFF (open-ended)"

# 18. still_over_audio.mp4: one H.264 picture (0.04 s) over 3 s of audio: a title card
"${FF[@]}" -f lavfi -i "testsrc2=size=64x48:rate=25:duration=1" -frames:v 1 "${X264[@]}" "${BITEXACT[@]}" "$tmp/one.mp4"
"${FF[@]}" -f lavfi -i "sine=d=3" -c:a aac "${BITEXACT[@]}" "$tmp/a3.m4a"
"${FF[@]}" -i "$tmp/one.mp4" -i "$tmp/a3.m4a" -c copy -map 0:v -map 1:a "${BITEXACT[@]}" "$out/still_over_audio.mp4"
say still_over_audio.mp4 "one 64x48 picture over 3 s of audio"

# 19/20. hdr10_pq.mp4 and hdr_hlg.mp4: testsrc2 as HDR (BT.2020, PQ with MaxCLL 1000 / HLG; SDR white
# at 1000 cd/m2), 10-bit HEVC; and the reference tone mapping libavfilter gives for each
# (zscale + tonemap=hable, as the issue names), as RGB PNG. Needs ffmpeg with libx265 and zimg.
TONEMAP="zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable,zscale=t=bt709:m=bt709:r=tv,format=yuv420p,scale=in_color_matrix=bt709:in_range=tv:out_range=pc,format=rgb24"
for kind in pq hlg; do
    if [ $kind = pq ]; then name=hdr10_pq; trc=smpte2084; extra=":max-cll=1000,400"; else name=hdr_hlg; trc=arib-std-b67; extra=""; fi
    "${FF[@]}" -f lavfi -i "testsrc2=size=160x90:rate=10:duration=1" \
        -vf "format=gbrpf32le,zscale=tin=bt709:min=gbr:pin=bt709:rin=full:t=$trc:p=bt2020:m=bt2020nc:r=tv:npl=1000,format=yuv420p10le" \
        -c:v libx265 -x265-params "log-level=error:colorprim=bt2020:transfer=$trc:colormatrix=bt2020nc$extra" -tag:v hvc1 \
        "${BITEXACT[@]}" "$out/$name.mp4"
    "${FF[@]}" -i "$out/$name.mp4" -vf "$TONEMAP" -frames:v 1 "${BITEXACT[@]}" "$out/$name.reference.png"
    # Without colour chunks (gAMA, cHRM): libpng's reader would convert the pixels by them.
    python3 "$here/strip_png_colour.py" "$out/$name.reference.png"
    say $name.mp4 "HEVC 10-bit BT.2020 $trc, 160x90"
done

# 21-24. seek_*: counter.mp4 re-encoded the ways seeking goes wrong on real files: MPEG-TS with
# B-frames and open GOPs, MP4 with open GOPs (sync samples whose leading B-frames need the GOP
# before), VP9 WebM with one keyframe, and an MP4 cut with -ss -c copy (starts before its first
# keyframe, with an edit list).
"${FF[@]}" -i "$out/counter.mp4" -c:v libx264 -bf 3 -g 48 -x264-params "open-gop=1:keyint=48:min-keyint=48:scenecut=0" "${BITEXACT[@]}" -f mpegts "$out/seek_ts_bframes.ts"
"${FF[@]}" -i "$out/counter.mp4" -c:v libx264 -bf 3 -x264-params "open-gop=1:keyint=40:min-keyint=40:scenecut=0" "${BITEXACT[@]}" -movflags +faststart "$out/seek_opengop.mp4"
"${FF[@]}" -i "$out/counter.mp4" -c:v libvpx-vp9 -g 1000 -b:v 200k "${BITEXACT[@]}" "$out/seek_onekey.webm"
"${FF[@]}" -ss 1.1 -i "$out/counter.mp4" -c copy "${BITEXACT[@]}" "$out/seek_cut.mp4"
for f in seek_ts_bframes.ts seek_opengop.mp4 seek_onekey.webm seek_cut.mp4; do say $f "counter.mp4 for seek tests"; done

# 24b. avi_bframes.avi, avi_packed.avi: 2 s of testsrc2 at 25 fps as MPEG-4 Part 2 with B-frames
# in AVI, which times packets in decode order and gives only some a presentation time; Xvid packs
# a P and a B picture into one packet (DivX-style packed bitstream): 48 packets for 50 frames.
for enc in mpeg4:avi_bframes libxvid:avi_packed; do
    "${FF[@]}" -f lavfi -i "testsrc2=size=160x120:rate=25:duration=2" -c:v "${enc%%:*}" -bf 2 -q:v 6 -pix_fmt yuv420p \
        "${BITEXACT[@]}" "$out/${enc#*:}.avi"
    say "${enc#*:}.avi" "MPEG-4 Part 2 with B-frames in AVI, 160x120 25 fps"
done

# 24c. anim.webp: an animated WebP (3 frames of 32x24), which FFmpeg's WebP decoder before 7.1 cannot read
"${FF[@]}" -f lavfi -i "testsrc2=size=32x24:rate=5:duration=0.6,hue=H=t*6" -c:v libwebp_anim -loop 0 "$out/anim.webp"
say anim.webp "animated WebP 32x24, 3 frames"

# 24d. vp9_alpha.webm: VP9 with an alpha channel (WebM alpha_mode 1): the left half opaque, the right transparent
"${FF[@]}" -f lavfi -i "testsrc2=size=32x24:rate=10:duration=0.5,format=yuva420p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='if(lt(X,16),255,0)'" \
    -c:v libvpx-vp9 -pix_fmt yuva420p "${BITEXACT[@]}" "$out/vp9_alpha.webm"
say vp9_alpha.webm "VP9 with alpha 32x24, 5 frames"

# 25. cover_art.m4a: 1 s of audio with a PNG cover (attached picture): no video to convert
"${FF[@]}" -f lavfi -i "testsrc2=size=64x64:rate=1" -frames:v 1 "$tmp/cover.png"
"${FF[@]}" -f lavfi -i "sine=d=1" -i "$tmp/cover.png" -map 0:a -map 1:v -c:a aac -c:v png -disposition:v:0 attached_pic \
    "${BITEXACT[@]}" "$out/cover_art.m4a"
say cover_art.m4a "AAC with an attached-picture cover"

# 26. fps60.mkv: constant 60 fps in Matroska's millisecond timestamps (gaps of 16 and 17 ms)
"${FF[@]}" -f lavfi -i "testsrc2=size=64x48:rate=60:duration=1" "${X264[@]}" -pix_fmt yuv420p "${BITEXACT[@]}" "$out/fps60.mkv"
say fps60.mkv "H.264 64x48 60 fps, 1 s, Matroska"

# 27. raw_annexb.h264: a raw H.264 stream (no container, no timestamps), B-frames, a keyframe a second
"${FF[@]}" -f lavfi -i "testsrc2=size=160x120:rate=10:duration=3" "${X264[@]}" -g 10 -bf 2 -pix_fmt yuv420p -f h264 "$out/raw_annexb.h264"
say raw_annexb.h264 "raw H.264 160x120 10 fps, 3 s, no timestamps"

# 28. calm_end.mp4: 1.2 s of testsrc2, then its last picture held for 2.8 s (10 fps, 40 frames):
#     --max-bytes projects from the first 30% of the frames, all moving, and is 3x off.
"${FF[@]}" -f lavfi -i "testsrc2=size=160x120:rate=10:duration=1.2" -vf "tpad=stop_mode=clone:stop_duration=2.8,format=yuv420p" \
    "${X264[@]}" -crf 18 "${BITEXACT[@]}" -movflags +faststart "$out/calm_end.mp4"
say calm_end.mp4 "H.264 160x120 10 fps 4 s, still after 1.2 s"

# 29. cut_editlist.mp4: 4 s of counter frames at 25 fps (64x48, a keyframe every 2 s) cut with
#     -ss 1.3 -c copy: the cut starts at the keyframe at 0, with an edit list from 1.3 s, so 33
#     packets are decoded as references only (ffprobe: 2.7 s, 67 frames decoded of 100 packets).
raw_h264 counter 64 48 100 25 "$tmp/counter25.mp4" -crf 10 -g 50 -keyint_min 50 -sc_threshold 0
"${FF[@]}" -ss 1.3 -i "$tmp/counter25.mp4" -c copy "${BITEXACT[@]}" "$out/cut_editlist.mp4"
say cut_editlist.mp4 "H.264 64x48 25 fps cut at 1.3 s, edit list"
# 29b. cut_negts.mkv: the same cut into Matroska with -avoid_negative_ts disabled: the 33 pictures
#      before the cut (negative times, which Matroska cannot store) come out without timestamps,
#      then the cut's from 0.02 s on; the stream's start time is 0.14 s (the first timed packet).
"${FF[@]}" -ss 1.3 -i "$tmp/counter25.mp4" -c copy -avoid_negative_ts disabled "${BITEXACT[@]}" "$out/cut_negts.mkv"
say cut_negts.mkv "H.264 64x48 25 fps cut at 1.3 s, untimed lead"
# 29c. seek_negts.webm: the same 4 s as VP9 in WebM (a keyframe every 2 s), cut the same way: the
#      first keyframe keeps its time, -1.3 s, which no cue lists (cue times are unsigned), so a seek
#      to the beginning lands on the keyframe at 0.7 s (2.0 s from the start) and reports success.
"${FF[@]}" -i "$tmp/counter25.mp4" -c:v libvpx-vp9 -threads 1 -row-mt 0 -deadline good -cpu-used 4 -b:v 0 -crf 10 \
    -g 50 -keyint_min 50 "${BITEXACT[@]}" "$tmp/counter25.webm"
"${FF[@]}" -ss 1.3 -i "$tmp/counter25.webm" -c copy -avoid_negative_ts disabled "${BITEXACT[@]}" "$out/seek_negts.webm"
say seek_negts.webm "VP9 64x48 25 fps cut at 1.3 s, first keyframe at -1.3 s"

# 29d. ts_midgop.ts: the same 4 s (keyframes at counter 0 and 50) as MPEG-TS, its first third of
#      bytes cut off at a 188-byte packet boundary (as a recording started mid-broadcast, or
#      `tail -c`): it begins inside the first GOP, whose pictures no decoder can show, so the clip
#      is counter 50 to 99, 2.0 s.
"${FF[@]}" -i "$tmp/counter25.mp4" -c copy -f mpegts "${BITEXACT[@]}" "$tmp/counter25.ts"
size=$(stat -c %s "$tmp/counter25.ts")
tail -c +$(( (size / 3 / 188) * 188 + 1 )) "$tmp/counter25.ts" > "$out/ts_midgop.ts"
say ts_midgop.ts "H.264 64x48 25 fps in MPEG-TS, begins mid-GOP"

# 29d2. ts_joined.ts: the same 4 s as three MPEG-TS files joined with cat, as recordings are: counter
#      0-39, then 40-69 timed from 5000 s (a clock that jumped ahead), then 70-99 timed from the
#      start again (a second file). ffmpeg makes such times continuous (MPEG-TS may jump): a 4.0 s
#      clip, tick i at 10 fps showing counter 2.5 i.
for part in "0 1.6 0" "1.6 1.2 5000" "2.8 1.2 0"; do
    set -- $part
    "${FF[@]}" -ss "$1" -t "$2" -i "$tmp/counter25.mp4" "${X264[@]}" -crf 10 -bf 2 -g 50 -output_ts_offset "$3" \
        "${BITEXACT[@]}" -f mpegts "$tmp/part_$1.ts"
done
cat "$tmp/part_0.ts" "$tmp/part_1.6.ts" "$tmp/part_2.8.ts" > "$out/ts_joined.ts"
say ts_joined.ts "H.264 64x48 25 fps, three MPEG-TS joined: jumps ahead, then back"
# 29d3. avi_h264_bframes.avi: the same 4 s as H.264 with 3 B-frames in AVI, which times packets only
#      by their place (decode order): the decoder's own times run 2 pictures late and the last two
#      have none; clipkit gives the pictures the decode times in turn: tick i shows counter 2.5 i.
"${FF[@]}" -i "$tmp/counter25.mp4" "${X264[@]}" -crf 10 -bf 3 -g 50 "${BITEXACT[@]}" "$out/avi_h264_bframes.avi"
say avi_h264_bframes.avi "H.264 64x48 25 fps 4 s, 3 B-frames, in AVI"
# 29d3b. asf_h264_bframes.asf: the same in ASF, which libavformat times by decode time only, as AVI.
"${FF[@]}" -i "$tmp/counter25.mp4" "${X264[@]}" -crf 10 -bf 3 -g 50 "${BITEXACT[@]}" "$out/asf_h264_bframes.asf"
say asf_h264_bframes.asf "H.264 64x48 25 fps 4 s, 3 B-frames, in ASF"
# 29d4. nut_bframes.nut: the same as H.264 with 3 B-frames in NUT, whose length (4.04 s, from 0) stops at
#      the last timestamp less the start (0.08 s): sampled at 10 fps, B-frames are not decoded, and the
#      gap before the last frame decoded is two frames, not its own 40 ms. 4.0 s, 40 ticks.
"${FF[@]}" -i "$tmp/counter25.mp4" "${X264[@]}" -crf 10 -bf 3 -g 50 "${BITEXACT[@]}" -f nut "$out/nut_bframes.nut"
say nut_bframes.nut "H.264 64x48 25 fps 4 s, 3 B-frames, in NUT"
# 29d5. gray10_ramp.mkv: a grey ramp 256x8 (pixel x is level x of 255), one frame, FFV1 gray10 without a
#      range tag: grey without a range is full range (as swscale and ffmpeg take it, and 8-bit grey).
"${FF[@]}" -f lavfi -i "gradients=s=256x8:c0=black:c1=white:x0=0:y0=0:x1=255:y1=0:nb_colors=2,format=gray10le" -frames:v 1 \
    -c:v ffv1 "${BITEXACT[@]}" "$out/gray10_ramp.mkv"
say gray10_ramp.mkv "FFV1 gray10 256x8 ramp, no range tag"
# 29d6. hls_segment.mp4: the same 4 s as HLS with fMP4 segments of 2 s, its init segment joined to the
#      second media segment (as a segment is looked at): counter 50-99, timed from 2.0 s, in fragments
#      (no sample count in the moov); libavformat's length (4.0 s) is where it ends, counted from 0.
(cd "$tmp" && "${FF[@]}" -i counter25.mp4 -c copy -f hls -hls_time 2 -hls_segment_type fmp4 -hls_playlist_type vod \
    -hls_fmp4_init_filename hls_init.mp4 -hls_segment_filename 'hls_%d.m4s' hls.m3u8)
cat "$tmp/hls_init.mp4" "$tmp/hls_1.m4s" > "$out/hls_segment.mp4"
say hls_segment.mp4 "H.264 64x48 25 fps, an HLS fMP4 segment from 2.0 s"
# 29d7. avi_h264_dropped.avi: avi_h264_bframes.avi without counter 10-14 (dropped before encoding: AVI
#      writes empty chunks in their place): counter 15 is on screen from 0.60 s, counter 9 held 240 ms.
"${FF[@]}" -i "$tmp/counter25.mp4" -vf "select='not(between(n,10,14))'" "${X264[@]}" -crf 10 -bf 3 -g 50 \
    "${BITEXACT[@]}" "$out/avi_h264_dropped.avi"
say avi_h264_dropped.avi "H.264 64x48 25 fps 4 s, 3 B-frames, frames 10-14 dropped, in AVI"
# 29d8. mpeg1_raw.m1v and mpeg2_raw.m2v: the same 4 s as raw MPEG-1 and MPEG-2 video (no container, no
#      B-frames): libavformat's length of the MPEG-1 stream is a bit-rate guess (a few ms), the MPEG-2
#      one has none; the decoder's one-picture delay timed every picture 40 ms late.
"${FF[@]}" -i "$tmp/counter25.mp4" -c:v mpeg1video -q:v 3 -bf 0 "${BITEXACT[@]}" "$out/mpeg1_raw.m1v"
"${FF[@]}" -i "$tmp/counter25.mp4" -c:v mpeg2video -q:v 3 -bf 0 "${BITEXACT[@]}" "$out/mpeg2_raw.m2v"
say mpeg1_raw.m1v "MPEG-1 64x48 25 fps 4 s, raw"
say mpeg2_raw.m2v "MPEG-2 64x48 25 fps 4 s, raw"
# 29d9. rgb_odd.mov: 3 counter frames 201x9 as QuickTime Animation (qtrle, packed rgb24), an odd width:
#      scaled down, the last column is the frame's colour (libswscale's 4:2:0 detour read past each row).
python3 "$helper" counter 201 9 3 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 201x9 -framerate 10 -i pipe:0 -c:v qtrle -pix_fmt rgb24 "${BITEXACT[@]}" "$out/rgb_odd.mov"
say rgb_odd.mov "QuickTime Animation rgb24 201x9, 3 frames"
# 29d10. uyvy_2vuy.mov: 3 counter frames 32x16 as uncompressed QuickTime 4:2:2 (2vuy, 16 bits a pixel,
#      whose sample description says 24): read without probing (thumb, storyboard) it is whole pictures.
python3 "$helper" counter 32 16 3 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 32x16 -framerate 10 -i pipe:0 -c:v rawvideo -pix_fmt uyvy422 -tag:v 2vuy "${BITEXACT[@]}" "$out/uyvy_2vuy.mov"
say uyvy_2vuy.mov "uncompressed 2vuy 32x16, 3 frames"

# 29e. audio_longer.mkv: 1 s of testsrc2 at 25 fps (64x48) with 1.04 s of audio: Matroska gives its
#      streams no length of their own, and the container's runs to where the audio ends.
"${FF[@]}" -f lavfi -i "testsrc2=size=64x48:rate=25:duration=1" -f lavfi -i "sine=frequency=440:duration=1.04:sample_rate=8000" \
    "${X264[@]}" -pix_fmt yuv420p -c:a pcm_u8 "${BITEXACT[@]}" "$out/audio_longer.mkv"
say audio_longer.mkv "H.264 64x48 25 fps 1 s, audio 1.04 s, in Matroska"

# 30. tall.mp4: 20 counter frames 32x6560 at 10 fps, a picture 205 times taller than wide: its
#     tiles are the source's size, and ten rows of them (65600 px) more than a JPEG can hold.
raw_h264 counter 32 6560 20 10 "$out/tall.mp4" -crf 10 -g 10 -movflags +faststart
say tall.mp4 "H.264 32x6560 10 fps 2 s, counter frames"

# 31. tall_png.mkv: 2 counter frames 16x17000 as PNG in Matroska, 5 fps: taller than WebP (16383)
#     and x264 (16384) take, so its WebP and MP4 are refused for size.
python3 "$helper" counter 16 17000 2 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 16x17000 -framerate 5 -i pipe:0 -c:v png "${BITEXACT[@]}" "$out/tall_png.mkv"
say tall_png.mkv "PNG 16x17000 in Matroska, 2 frames"

# 30. mbtree_tail.mp4: 0.5 s of testsrc2 at 144x160 (9 x 10 macroblocks), 10 fps. An MP4 of it is
#     9 macroblocks wide, not a multiple of 8: x264's AVX-512 macroblock tree read past the last
#     row's end there, into bytes nothing wrote (FormatTests, AnimationEncoder.x264Features).
"${FF[@]}" -f lavfi -i "testsrc2=size=144x160:rate=10:duration=0.5" "${X264[@]}" -pix_fmt yuv420p \
    "${BITEXACT[@]}" -movflags +faststart "$out/mbtree_tail.mp4"
say mbtree_tail.mp4 "H.264 144x160 10 fps 0.5 s, 9x10 macroblocks"

# 32. ramp48.png: a grey ramp 0-255 across 256x8 as a 16-bit RGB PNG without gAMA or sRGB (as
#     ffmpeg, Pillow and OpenCV write one): sRGB-encoded, like an 8-bit one (libpng's simplified
#     API took it for linear light: grey 32 became 99 in its GIF).
"${FF[@]}" -f lavfi -i "gradients=s=256x8:c0=black:c1=white:x0=0:y0=0:x1=255:y1=0,format=rgb48be" -frames:v 1 \
    "${BITEXACT[@]}" "$out/ramp48.png"
say ramp48.png "16-bit grey ramp 256x8, no gAMA"

# 33. offset_10h.mkv: counter.mp4's 4 s in Matroska from 10 hours (-output_ts_offset 36000): the
#     segment duration counts from zero, 36004 s, where the clip is 4 s.
"${FF[@]}" -i "$out/counter.mp4" -c copy -output_ts_offset 36000 "${BITEXACT[@]}" "$out/offset_10h.mkv"
say offset_10h.mkv "H.264 160x120 30 fps 4 s, timestamps from 36000 s"

# 34. vui_aspect.mp4: anamorphic.mp4 with its pasp box renamed `free`: the 16:9 pixels are in the
#     H.264 VUI only, as DVCPRO HD, HDV and `h264_metadata`-retagged MOV/MP4 carry them. Shown
#     213x120 by ffmpeg; an unprobed open sees no aspect ratio in the headers.
python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d.count(b"pasp") == 1; open(sys.argv[2], "wb").write(d.replace(b"pasp", b"free"))' \
    "$out/anamorphic.mp4" "$out/vui_aspect.mp4"
say vui_aspect.mp4 "H.264 120x120, SAR 16:9 in the VUI only"

# 35. ps_tail.mpg: 12 counter frames 720x576 as intra MPEG-2 in MPEG-PS (ffmpeg's mpeg muxer), 25 fps.
#     MPEG-PS is sought by decode time: the seek for frame 10 lands on frame 11, the last, whose
#     picture comes out of the end code's packet without a timestamp.
python3 "$helper" counter 720 576 12 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 720x576 -framerate 25 -i pipe:0 -c:v mpeg2video -q:v 3 \
        "${BITEXACT[@]}" "$out/ps_tail.mpg"
say ps_tail.mpg "MPEG-2 720x576 25 fps in MPEG-PS, 12 counter frames"

# 36. two_edits.mp4: 75 counter frames 64x48 at 25 fps (H.264 with B-frames) whose edit list shows media
#     0-1 s, then 2-3 s: libavformat gives counter 0-24 at 0-0.96 s and 50-74 at 1.04-2.0 s, and the
#     frames between as references flagged discard.
python3 "$helper" counter 64 48 75 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 -vf "$TO_YUV" "${X264[@]}" -crf 20 \
        "${BITEXACT[@]}" "$tmp/two_edits_src.mp4"
python3 "$helper" edit_list "$tmp/two_edits_src.mp4" "$out/two_edits.mp4" 1000:1024,1000:26624
say two_edits.mp4 "H.264 64x48 25 fps, an edit list of media 0-1 s and 2-3 s"

# 37. ps_sparse.mpg: 75 counter frames 160x120 (blue 128) as H.264 with B-frames in MPEG-PS, 25 fps: ffmpeg's
#     mpeg muxer puts a timestamp on 3 PES of 6, each holding many frames, so nearly every frame is untimed.
python3 "$helper" counter 160 120 75 128 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 160x120 -framerate 25 -i pipe:0 -c:v libx264 -pix_fmt yuv420p \
        "${BITEXACT[@]}" -f mpeg "$out/ps_sparse.mpg"
say ps_sparse.mpg "H.264 160x120 25 fps in MPEG-PS, 3 timestamps for 75 frames"

# 38. sps_crop.mp4: 10 quadrant frames 64x64 (10 fps) whose H.264 SPS then crops the bottom 16 lines
#     (`h264_metadata=crop_bottom=16` on a stream copy): the sample description still says 64x64 over
#     a 64x48 picture, as a camera's 1920x1088 over a 1080-line stream does.
python3 "$helper" quadrants 64 64 10 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x64 -framerate 10 -i pipe:0 -vf "$TO_YUV" "${X264[@]}" -crf 20 \
        "${BITEXACT[@]}" "$tmp/sps_crop_src.mp4"
"${FF[@]}" -i "$tmp/sps_crop_src.mp4" -c copy -bsf:v h264_metadata=crop_bottom=16 "${BITEXACT[@]}" "$out/sps_crop.mp4"
say sps_crop.mp4 "H.264 64x48 shown, 64x64 in the sample description"

# 39. cut_short.mkv: 50 counter frames 64x48 at 25 fps (2 s) with 2 s of audio in Matroska, cut to 60% of
#     its bytes, as a download that stopped: the header still says 2 s, and no packet reaches past 1.2 s.
python3 "$helper" counter 64 48 50 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 \
        -f lavfi -i "sine=frequency=440:duration=2:sample_rate=8000" -vf "$TO_YUV" "${X264[@]}" -crf 20 -c:a pcm_u8 \
        "${BITEXACT[@]}" "$tmp/cut_short_src.mkv"
size=$(stat -c %s "$tmp/cut_short_src.mkv")
head -c $((size * 60 / 100)) "$tmp/cut_short_src.mkv" >"$out/cut_short.mkv"
say cut_short.mkv "H.264 64x48 25 fps 2 s with audio, cut to 60% of $size bytes"

# 40. audio_tail.mkv: 1 s of counter frames 64x48 at 25 fps with 3 s of audio in Matroska: the header's
#     3 s is the audio's, whose packets reach it, so the file is whole though the frames end at 1 s.
python3 "$helper" counter 64 48 25 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 \
        -f lavfi -i "sine=frequency=440:duration=3:sample_rate=8000" -vf "$TO_YUV" "${X264[@]}" -crf 20 -c:a pcm_u8 \
        "${BITEXACT[@]}" "$out/audio_tail.mkv"
say audio_tail.mkv "H.264 64x48 25 fps 1 s, audio 3 s, in Matroska"

# 41. video_late.mkv: 25 counter frames 64x48 at 25 fps (1 s) that start 1.5 s after 1 s of audio, in
#     Matroska: the container runs 0-2.5 s, the video 1.5-2.5 s; whole, so nothing is said of its length.
python3 "$helper" counter 64 48 25 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 -vf "$TO_YUV" "${X264[@]}" -crf 20 \
        "${BITEXACT[@]}" "$tmp/video_late_src.mp4"
"${FF[@]}" -itsoffset 1.5 -i "$tmp/video_late_src.mp4" -f lavfi -i "sine=frequency=440:duration=1:sample_rate=8000" \
    -map 0:v -map 1:a -c:v copy -c:a pcm_u8 "${BITEXACT[@]}" "$out/video_late.mkv"
say video_late.mkv "H.264 64x48 25 fps 1 s from 1.5 s, audio 0-1 s, in Matroska"

# 42. interlaced_tff.mkv: 40 bar frames 64x48 at 50 fps woven in pairs (top field from the even frames,
#     shown first) into 20 interlaced frames at 25 fps, H.264 MBAFF, top field first: interlaced frame k's
#     top rows show the bar at x = 12k, its bottom rows at 12k + 6 (1/50 s later).
python3 "$helper" bar 64 48 40 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 50 -i pipe:0 \
        -vf "tinterlace=interleave_top,fieldorder=tff,$TO_YUV" "${X264[@]}" -crf 12 -flags +ildct+ilme -x264-params tff=1 \
        "${TAG601[@]}" "${BITEXACT[@]}" "$out/interlaced_tff.mkv"
say interlaced_tff.mkv "H.264 MBAFF 64x48 25 fps, top field first, a bar moving 6 px a field"

# 43. interlaced_bff.mpg: the same bar woven the other way (bottom field from the even frames, shown
#     first), MPEG-2 in MPEG-PS, bottom field first: frame k's bottom rows at x = 12k, its top at 12k + 6.
python3 "$helper" bar 64 48 40 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 50 -i pipe:0 \
        -vf "tinterlace=interleave_bottom,fieldorder=bff,$TO_YUV" -c:v mpeg2video -q:v 2 -flags +ildct+ilme -top 0 \
        "${BITEXACT[@]}" "$out/interlaced_bff.mpg"
say interlaced_bff.mpg "MPEG-2 64x48 25 fps, bottom field first, a bar moving 6 px a field"

# 44. cut_picture.y4m: 10 counter frames 64x48 at 25 fps in YUV4MPEG, cut 1,000 bytes into the tenth
#     picture (of 4,608): libavformat drops the part silently, and the format states no length.
#     frame_params.y4m: the same whole, each FRAME line with a parameter (FRAME Ip): pictures
#     not at fixed places, which must not read as cut.
python3 "$helper" counter 64 48 10 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 -vf "$TO_YUV" \
        "${BITEXACT[@]}" "$tmp/counter.y4m"
header=$(head -1 "$tmp/counter.y4m" | wc -c)
head -c $((header + 9 * (4608 + 6) + 6 + 1000)) "$tmp/counter.y4m" >"$out/cut_picture.y4m"
say cut_picture.y4m "YUV4MPEG 64x48 25 fps, 9 whole pictures and 1,000 bytes of the tenth"
python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(d.replace(b"FRAME\n", b"FRAME Ip\n"))' \
    "$tmp/counter.y4m" "$out/frame_params.y4m"
say frame_params.y4m "YUV4MPEG 64x48 25 fps, 10 pictures, FRAME lines with a parameter"

# 45. cut_page.ogv: the 10 counter frames in Theora, one frame a page, less the last 10 bytes
#     (of the last page's 49): libavformat drops the page silently, and Ogg states no length (its duration is
#     the last whole page's). whole_pages.ogv: the same whole, which must not read as cut.
python3 "$helper" counter 64 48 10 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 -vf "$TO_YUV" \
        -c:v libtheora -q:v 7 -page_duration 40000 "${BITEXACT[@]}" "$out/whole_pages.ogv"
head -c $(($(wc -c <"$out/whole_pages.ogv") - 10)) "$out/whole_pages.ogv" >"$out/cut_page.ogv"
say whole_pages.ogv "Theora in Ogg 64x48 25 fps, 10 frames, one a page"
say cut_page.ogv "the same less its last 10 bytes, inside its last page"

# 46. crop_left.mp4: H.264 coded 96x64, cropped in its SPS 16 columns from the left, 6 rows from
#     the top, 4 and 2 from the right and bottom: a flat green border around a 76x56 testsrc2.
#     libavcodec applies a left crop only as far as keeps the planes aligned (none of 16 here).
"${FF[@]}" -f lavfi -i "color=c=0x00FF00:s=96x64:r=25:d=0.4[bg];testsrc2=s=76x56:r=25:d=0.4[fg];[bg][fg]overlay=16:6,format=yuv420p" \
    -c:v libx264 -preset medium -crf 16 -x264-params threads=1 \
    -bsf:v h264_metadata=crop_left=16:crop_top=6:crop_right=4:crop_bottom=2 "${BITEXACT[@]}" "$out/crop_left.mp4"
say crop_left.mp4 "H.264 96x64 coded, cropped to 76x56 (16 from the left, 6 from the top)"

# 47. ts_intra_refresh.ts: 6 s of testsrc2 64x48 25 fps, H.264 refreshed without keyframes (x264
#     intra-refresh, a refresh every 2 s, no B-frames) in MPEG-TS, its first 40% of bytes cut off
#     at a packet boundary: the decoder rebuilds the picture from the recovery point (flagged key)
#     and shows its first frame 1.5 s of packets later; ffmpeg decodes 48 frames (1.92 s).
"${FF[@]}" -f lavfi -i testsrc2=s=64x48:r=25:d=6 -pix_fmt yuv420p -c:v libx264 -crf 24 -bf 0 \
    -x264-params "intra-refresh=1:keyint=50:threads=1" "${BITEXACT[@]}" -f mpegts "$tmp/intra_refresh.ts"
size=$(stat -c %s "$tmp/intra_refresh.ts")
tail -c +$(( (size * 4 / 10 / 188) * 188 + 1 )) "$tmp/intra_refresh.ts" > "$out/ts_intra_refresh.ts"
say ts_intra_refresh.ts "H.264 intra refresh 64x48 25 fps in MPEG-TS, begins between recovery points"

# 48. hevc_open_gop_cut.ts: 100 counter frames 64x48 25 fps, HEVC open GOP (a CRA every 50, 4
#     B-frames) in MPEG-TS, cut at the packet three before the second CRA in decode order (a P
#     picture): HEVC's decoder gives that P and the B's after it from references it makes up, flat
#     grey, before the CRA (counter 50); the clip is counter 50 to 99, 2.0 s.
python3 "$helper" counter 64 48 100 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 -vf "$TO_YUV" -c:v libx265 \
        -x265-params "log-level=error:open-gop=1:keyint=50:min-keyint=50:bframes=4:scenecut=0:frame-threads=1:pools=none" \
        "${BITEXACT[@]}" -f mpegts "$tmp/open_gop.ts"
pos=$(ffprobe -v quiet -select_streams v -show_entries packet=pos,flags -of csv=p=0 "$tmp/open_gop.ts" | grep -v '^$' |
      awk -F, '$2 ~ /K/ { k++; if (k == 2) { print p3; exit } } { p3 = p2; p2 = p1; p1 = $1 }')
tail -c +$(( pos / 188 * 188 + 1 )) "$tmp/open_gop.ts" > "$out/hevc_open_gop_cut.ts"
say hevc_open_gop_cut.ts "HEVC open GOP 64x48 25 fps in MPEG-TS, begins on a P picture before a CRA"

# 49. cut_first_frame.mkv: 50 counter frames 64x48 25 fps (2 s, one GOP) in Matroska, cut 6 bytes
#     into its second block: one frame decodes, and the header still says 2 s.
python3 "$helper" counter 64 48 50 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 -vf "$TO_YUV" \
        -c:v libx264 -crf 10 -g 50 -x264-params threads=1 "${BITEXACT[@]}" "$tmp/counter50.mkv"
python3 - "$tmp/counter50.mkv" "$out/cut_first_frame.mkv" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
def vint(p):  # (length, value) of the EBML variable-length integer at p
    n = 1
    while not d[p] & (0x80 >> (n - 1)): n += 1
    v = d[p] & (0xFF >> n)
    for k in range(1, n): v = v << 8 | d[p + k]
    return n, v
c = d.find(bytes.fromhex("1f43b675"))
n, _ = vint(c + 4)
p = c + 4 + n
while True:  # the cluster's children up to its first SimpleBlock (A3)
    idn, _ = vint(p)
    ln, size = vint(p + idn)
    end = p + idn + ln + size
    if d[p] == 0xA3: break
    p = end
open(sys.argv[2], "wb").write(d[:end + 6])
PY
say cut_first_frame.mkv "H.264 64x48 25 fps in Matroska, 2 s stated, cut after its first frame"

# 50. live_whole.webm: the 10 counter frames 64x48 25 fps in VP8, a live WebM (no duration, no
#     cues, as a browser's MediaRecorder writes); live_cut.webm: the same less its last 10 bytes,
#     inside its last block. Matroska states no length here: only its demuxer's log tells.
python3 "$helper" counter 64 48 10 |
    "${FF[@]}" -f rawvideo -pix_fmt rgb24 -video_size 64x48 -framerate 25 -i pipe:0 -vf "$TO_YUV" \
        -c:v libvpx -b:v 200k -threads 1 -f webm -live 1 "${BITEXACT[@]}" "$out/live_whole.webm"
head -c $(($(wc -c <"$out/live_whole.webm") - 10)) "$out/live_whole.webm" >"$out/live_cut.webm"
say live_whole.webm "VP8 64x48 25 fps, live WebM without duration"
say live_cut.webm "the same less its last 10 bytes"

# 51. ts_intra_refresh_bframes.ts: 4 s of testsrc2 160x120 25 fps, intra refresh every second WITH
#     B-frames (3, pyramid), MPEG-TS, the first 30% of bytes cut off: the first good frame comes
#     out of the decoder only after the next recovery point's packet is sent, so the decode must
#     start from the recovery point at or before that frame's own packet; ffmpeg decodes 27 frames.
"${FF[@]}" -f lavfi -i testsrc2=s=160x120:r=25:d=4 -pix_fmt yuv420p -c:v libx264 -crf 38 \
    -x264-params "intra-refresh=1:keyint=25:bframes=3:b-pyramid=normal:threads=1" "${BITEXACT[@]}" -f mpegts "$tmp/intra_refresh_b.ts"
size=$(stat -c %s "$tmp/intra_refresh_b.ts")
tail -c +$(( (size * 30 / 100 / 188) * 188 + 1 )) "$tmp/intra_refresh_b.ts" > "$out/ts_intra_refresh_bframes.ts"
say ts_intra_refresh_bframes.ts "H.264 intra refresh with B-frames 160x120 in MPEG-TS, begins between recovery points"

# 52. qt600_idle_end.mov: a screen recording's shape in QuickTime's 600 Hz track time base: ten
#     frames (0-0.36 s), one at 2 s, and the frame written at stop at 4 s; the header says 4.04 s
#     (ffprobe's format duration). libavformat gives every packet one tick (1/600 s), so the last
#     frame has no duration of its own; taken as the 2 s gap before it, the clip was 6 s long.
"${FF[@]}" -f lavfi -i "testsrc2=s=64x48:r=25:d=1" \
    -vf "select='lt(n\,10)+eq(n\,20)+eq(n\,24)',setpts='if(lt(N\,10)\,N/25\,if(eq(N\,10)\,2\,4))/TB'" \
    -fps_mode vfr "${X264[@]}" "${BITEXACT[@]}" "$tmp/qt600.mp4"
"${FF[@]}" -i "$tmp/qt600.mp4" -c copy -video_track_timescale 600 "${BITEXACT[@]}" "$out/qt600_idle_end.mov"
say qt600_idle_end.mov "H.264 64x48 VFR in a 600 Hz MOV track, last frame 2 s after the one before, 4.04 s stated"

echo "make-fixtures: done, $(du -sk "$out" | cut -f1) KB in $out"
