#!/usr/bin/env bash
# Makes the fixtures of issue 23's "exact" classes in Fixtures/video/ (run: make fixtures): files
# whose keyframe flags, GOP structure, palette, colour metadata or timing mislead a decoder.
# Needs ffmpeg (libx264, libx265) and python3; byte edits are in exact_fixtures_helper.py.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/video"
helper="$here/exact_fixtures_helper.py"
mkdir -p "$out"
FF=(ffmpeg -hide_banner -loglevel error -nostdin -y)
BITEXACT=(-fflags +bitexact -flags +bitexact -map_metadata -1)
SRC=(-f lavfi -i)
say() { printf 'make-exact-fixtures: wrote %-28s %7d bytes  (%s)\n' "$1" "$(stat -c %s "$out/$1")" "$2"; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# seek_synclie.3gp: H.263, 5 fps, 12 s, real I-frames at 0 and 9.0 s only; the sync-sample table
# also lists the P-frames at 3.6, 6.8 and 10.2 s (samples 19, 35, 52) as keyframes.
"${FF[@]}" "${SRC[@]}" testsrc2=size=128x96:rate=5:duration=12 -c:v h263 -g 45 -q:v 14 "${BITEXACT[@]}" "$out/seek_synclie.3gp"
python3 "$helper" sync-table "$out/seek_synclie.3gp" 1 19 35 46 52
say seek_synclie.3gp "H.263 3GP, stss lists P-frames as keyframes"

# seek_midgop_hevc.ts: HEVC in MPEG-TS, open GOPs (CRA) every 4 s, B-frames: no index, so a seek
# lands mid-GOP and the decoder invents the missing references.
"${FF[@]}" "${SRC[@]}" testsrc2=size=128x96:rate=5:duration=12 -c:v libx265 \
    -x265-params "keyint=20:min-keyint=20:scenecut=0:open-gop=1:bframes=3:log-level=error" -crf 32 -pix_fmt yuv420p \
    "${BITEXACT[@]}" -f mpegts "$out/seek_midgop_hevc.ts"
say seek_midgop_hevc.ts "HEVC MPEG-TS, open GOP, seeks land mid-GOP"

# seek_bframes_edit.mp4: 1 fps (pts are whole seconds), I/I/B/B/I/B/B: keyframes forced at 0, 1,
# 4, 7, 10 with open GOPs (the B-frames before each I follow it in decode order), P-frames that
# reference across keyframes (x264's default 3 references), cut with -ss -c copy (an edit list).
"${FF[@]}" "${SRC[@]}" testsrc2=size=128x96:rate=1:duration=12 -c:v libx264 -threads 1 -bf 2 \
    -x264-params "b-pyramid=none:b-adapt=0:scenecut=0:keyint=3:min-keyint=1:open-gop=1" -force_key_frames "0,1,4,7,10" \
    -crf 30 -pix_fmt yuv420p "${BITEXACT[@]}" "$tmp/bframes.mp4"
"${FF[@]}" -ss 0.5 -i "$tmp/bframes.mp4" -c copy "${BITEXACT[@]}" "$out/seek_bframes_edit.mp4"
say seek_bframes_edit.mp4 "H.264 1 fps I/I/B/B open GOP, edit list"

# seek_latekey.mp4: 10 fps, 6 s; the first keyframe is blanked (zeros), so nothing decodes
# before the next one at 3.1 s, the only sample the sync table lists.
"${FF[@]}" "${SRC[@]}" testsrc2=size=128x96:rate=10:duration=6 -c:v libx264 -threads 1 -bf 0 -x264-params "scenecut=0:keyint=100" \
    -force_key_frames "0,3.1" -crf 30 -pix_fmt yuv420p "${BITEXACT[@]}" "$out/seek_latekey.mp4"
python3 "$helper" blank-first "$out/seek_latekey.mp4"
python3 "$helper" sync-table "$out/seek_latekey.mp4" 32
say seek_latekey.mp4 "H.264, first decodable frame at 3.1 s"

# palette_raw.avi: 8-bit paletted video (raw PAL8 in AVI, 4 fps, 3 s); the palette is in the
# header, given to the decoder with the first packet only, so a seek loses it.
"${FF[@]}" "${SRC[@]}" testsrc2=size=48x32:rate=4:duration=3 -pix_fmt pal8 -c:v rawvideo "${BITEXACT[@]}" "$out/palette_raw.avi"
say palette_raw.avi "raw PAL8 in AVI, header palette"

# palette_raw_cut.avi: palette_raw.avi cut halfway through its last picture (12 pictures of 1536
# bytes; the last packet holds 768): FFmpeg's rawvideo decoder fills the rest of such a picture
# from uninitialised memory, so it is not decoded.
last=$(ffprobe -v error -select_streams v -show_entries packet=pos -of csv=p=0 "$out/palette_raw.avi" | tail -n 1)
head -c $((last + 8 + 768)) "$out/palette_raw.avi" > "$out/palette_raw_cut.avi"
say palette_raw_cut.avi "palette_raw.avi cut halfway through its last picture"

# hdr10_nometa.mp4: HDR10 (PQ, BT.2020, 10-bit HEVC) with neither MaxCLL nor mastering display
# metadata, and its reference tone mapping by libavfilter's zscale + tonemap=hable chain (the
# same chain as hdr10_pq.reference.png in make-fixtures.sh), which then assumes a 1000 cd/m2 peak.
TONEMAP="zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable,zscale=t=bt709:m=bt709:r=tv,format=yuv420p,scale=in_color_matrix=bt709:in_range=tv:out_range=pc,format=rgb24"
"${FF[@]}" "${SRC[@]}" "testsrc2=size=160x90:rate=10:duration=1" \
    -vf "format=gbrpf32le,zscale=tin=bt709:min=gbr:pin=bt709:rin=full:t=smpte2084:p=bt2020:m=bt2020nc:r=tv:npl=1000,format=yuv420p10le" \
    -c:v libx265 -x265-params "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc" -tag:v hvc1 \
    "${BITEXACT[@]}" "$out/hdr10_nometa.mp4"
"${FF[@]}" -i "$out/hdr10_nometa.mp4" -vf "$TONEMAP" -frames:v 1 "${BITEXACT[@]}" "$out/hdr10_nometa.reference.png"
# Without colour chunks (gAMA, cHRM): libpng's reader would convert the pixels by them.
python3 "$here/strip_png_colour.py" "$out/hdr10_nometa.reference.png"
say hdr10_nometa.mp4 "HEVC 10-bit PQ without light-level metadata, 160x90"

# vfr_tick.mkv / vfr_nodur.mkv: 5 s at 30, 10 and 24 fps (a 120 fps source thinned), 64x48.
# ffmpeg's Matroska muxer gives the track the time base's tick (8 ms) as DefaultDuration, so
# the header ends the last frame 8 ms after its timestamp; vfr_nodur.mkv has no durations at all
# (DefaultDuration and BlockDurations voided) and a segment Duration at the last timestamp.
"${FF[@]}" "${SRC[@]}" "testsrc2=size=64x48:rate=120:duration=5" \
    -vf "select='lt(t\,2)*not(mod(n\,4))+between(t\,2\,3.999)*not(mod(n\,12))+gte(t\,4)*not(mod(n\,5))'" \
    -fps_mode vfr -c:v libx264 -threads 1 -crf 30 -g 60 -pix_fmt yuv420p "${BITEXACT[@]}" "$out/vfr_tick.mkv"
cp "$out/vfr_tick.mkv" "$out/vfr_nodur.mkv"
python3 "$helper" mkv-no-durations "$out/vfr_nodur.mkv"
say vfr_tick.mkv "H.264 VFR 30/10/24 fps, 5 s, 8 ms default duration"
say vfr_nodur.mkv "the same without any frame durations"

# anim_apng.png: an animated PNG (APNG, acTL before IDAT), 48x32, four solid frames (counter
# colours 0, 3, 6, 9) shown 100, 200, 300 and 400 ms, looping: `gif` converts it as a video (a
# still PNG is one frame), with those delays.
python3 - "$out/anim_apng.png" <<'PY'
import sys
from PIL import Image
colour = lambda n: (8 + 16 * (n % 16), 8 + 16 * ((n // 16) % 16), 200)
frames = [Image.new("RGB", (48, 32), colour(n)) for n in (0, 3, 6, 9)]
frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=[100, 200, 300, 400], loop=0)
PY
say anim_apng.png "an animated PNG: four frames, 100-400 ms"

# anim_apng_50ms.png, anim_apng_15ms.png: the counter colours 0-5 as six 48x32 frames of 50 ms
# (kept, each its own 5 cs) and of 15 ms (under the 2 cs a GIF delay can be: sampled at 10 fps).
# The 50 ms one loops forever; the 15 ms one plays 3 times (acTL num_plays 3: its GIF's count is 2).
for ms in 50 15; do
python3 - "$out/anim_apng_${ms}ms.png" "$ms" <<'PY'
import sys
from PIL import Image
colour = lambda n: (8 + 16 * (n % 16), 8 + 16 * ((n // 16) % 16), 200)
frames = [Image.new("RGB", (48, 32), colour(n)) for n in range(6)]
frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=int(sys.argv[2]),
               loop=0 if sys.argv[2] == "50" else 3)
PY
say "anim_apng_${ms}ms.png" "an animated PNG: six frames of $ms ms"
done

# orient6.jpg: a JPEG photo stored as the sensor saw it, 64x32: quadrants red (top left), green
# (top right), blue (bottom left), white; EXIF orientation 6 (turn a quarter clockwise to show it
# upright, as a phone held upright records it): shown 32x64, blue at the top left.
python3 - "$out/orient6.jpg" <<'PY'
import sys
from PIL import Image
picture = Image.new("RGB", (64, 32))
colours = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
for x in range(64):
    for y in range(32):
        picture.putpixel((x, y), colours[(x >= 32) + 2 * (y >= 16)])
exif = Image.Exif()
exif[0x0112] = 6
picture.save(sys.argv[1], exif=exif.tobytes(), quality=95)
PY
say orient6.jpg "a JPEG with EXIF orientation 6"

# gif/cut_first_image.gif, gif/short_first_image.gif: an opaque 40x30 GIF (3 images, no
# transparency anywhere) whose first image stops after 20 bytes of LZW data (about 820 of its
# 1200 pixels): at the end of the file, or with the sub-block, the data and the file closed
# properly. The undecoded pixels are transparent in browsers and in explode.
python3 - "$here/gif" <<'PY'
import sys
from PIL import Image, ImageDraw
frames = []
for i in range(3):
    im = Image.new("RGB", (40, 30), (200, 30 + 60 * i, 40))
    ImageDraw.Draw(im).rectangle([5 + i * 5, 5, 15 + i * 5, 20], fill=(20, 20, 220))
    frames.append(im.convert("P", palette=Image.ADAPTIVE, colors=16))
path = sys.argv[1] + "/cut_first_image.gif"
frames[0].save(path, save_all=True, append_images=frames[1:], duration=100, loop=0)
data = open(path, "rb").read()
at = 13 + (3 << ((data[10] & 7) + 1) if data[10] & 0x80 else 0)
while data[at] == 0x21:  # extensions before the first image descriptor
    at += 2
    while data[at]:
        at += 1 + data[at]
    at += 1
assert data[at] == 0x2C
assert data[at + 9] & 0x80 == 0, "no local colour table expected"
head = data[:at + 12] + data[at + 12:at + 12 + 20]
open(path, "wb").write(head)
short = bytearray(head)
short[at + 11] = 20
open(sys.argv[1] + "/short_first_image.gif", "wb").write(bytes(short) + b"\x00\x3b")
PY
say ../gif/cut_first_image.gif "first image cut short at the end of the file"
say ../gif/short_first_image.gif "first image's data ends early"

# gif/many_palettes.gif, gif/gif87a_animation.gif, gif/plain_text_out_of_range.gif: GIF decoding
# as browsers show it. Four 10x10 tiles of a 20x20 picture, each with its own colour table and
# no graphic control extension (the "many palettes, one picture" way past 256 colours): one
# frame. Three full-canvas images in a GIF87a file (no extensions at all): an animation of three
# frames. And a GIF89a whose first image is preceded by a graphic control extension (delay 30 cs)
# and then a plain text extension, and whose second image's local colour table is cut to 2
# entries while its pixels use indices 0 to 3.
python3 - "$here/gif" <<'PY'
import io, struct, sys
from PIL import Image

def image_block(im, left, top):
    """Pillow's image descriptor and LZW data for `im`, its colour table made local."""
    b = io.BytesIO()
    im.save(b, "GIF")
    d = b.getvalue()
    table = d[13:13 + (3 << ((d[10] & 7) + 1))] if d[10] & 0x80 else b""
    at = 13 + len(table)
    while d[at] == 0x21:
        at += 2
        while d[at]:
            at += 1 + d[at]
        at += 1
    assert d[at] == 0x2C and not d[at + 9] & 0x80
    end = at + 11
    while d[end]:
        end += 1 + d[end]
    block = bytearray(d[at:end + 1])
    block[1:5] = struct.pack("<HH", left, top)
    block[9] |= 0x80 | (d[10] & 7)
    return bytes(block[:10]) + table + bytes(block[10:])

def solid(colour, w, h, colours=2):
    return Image.new("RGB", (w, h), colour).convert("P", palette=Image.ADAPTIVE, colors=colours)

def gif(signature, w, h, body):
    return signature + struct.pack("<HHBBB", w, h, 0, 0, 0) + body + b"\x3b"

def control(delay):
    return bytes([0x21, 0xF9, 4, 0]) + struct.pack("<H", delay) + bytes([0, 0])

out = sys.argv[1]
tiles = b"".join(image_block(solid(c, 10, 10), x, y) for c, (x, y) in
                 zip([(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)], [(0, 0), (10, 0), (0, 10), (10, 10)]))
open(out + "/many_palettes.gif", "wb").write(gif(b"GIF89a", 20, 20, tiles))
frames = b"".join(image_block(solid(c, 20, 20), 0, 0) for c in [(255, 0, 0), (0, 255, 0), (0, 0, 255)])
open(out + "/gif87a_animation.gif", "wb").write(gif(b"GIF87a", 20, 20, frames))

# Four vertical bars (red, green, blue, white): indices 0..3 in a 4-entry table, cut to 2 entries.
bars = Image.new("RGB", (20, 20))
for x in range(20):
    for y in range(20):
        bars.putpixel((x, y), [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)][x // 5])
bars = bars.quantize(colors=4, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
cut = bytearray(image_block(bars, 0, 0))
assert cut[9] & 7 == 1, "a 4-entry table expected"
cut[9] = (cut[9] & ~7) | 0
cut = bytes(cut[:10 + 6]) + bytes(cut[10 + 12:])
plain_text = bytes([0x21, 0x01, 12]) + struct.pack("<HHHHBBBB", 0, 0, 20, 20, 8, 8, 1, 0) + bytes([4]) + b"TEXT" + b"\x00"
first = control(30) + plain_text + image_block(solid((90, 90, 90), 20, 20), 0, 0)
open(out + "/plain_text_out_of_range.gif", "wb").write(gif(b"GIF89a", 20, 20, first + control(40) + cut))
PY
for f in many_palettes.gif gif87a_animation.gif plain_text_out_of_range.gif; do say ../gif/$f "GIF decoding as browsers show it"; done
