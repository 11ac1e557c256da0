#!/usr/bin/env python3
"""Writes the corpus of broken inputs in Fixtures/bad/ (run: make fixtures, after make-fixtures.sh).

Usage: python3 Fixtures/make-bad-fixtures.py

Stdlib only. ffmpeg (5.1) is called to make the small base Matroska files; everything else is
derived byte by byte from files already in Fixtures/ (counter.mp4, rotated90.mov and
gif-test-suite/gifs/animated_loop.gif), with fixed seeds, so the output is deterministic.
Never needed at test time. Writes Fixtures/bad/README.md describing every file it writes.

The corpus test (issue 7) runs every command over every file here and requires: exit code 0 or
1 (never a signal), a one-line message on 1, no output file on 1, completion within a time
bound. A FIFO belongs in the corpus too but cannot be committed: the test makes it at run time.
"""
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import wave
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "bad")

SRC_GIF = os.path.join(HERE, "gif-test-suite", "gifs", "animated_loop.gif")
SRC_MP4 = os.path.join(HERE, "video", "counter.mp4")
SRC_MOV = os.path.join(HERE, "video", "rotated90.mov")

FF = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
BITEXACT = ["-fflags", "+bitexact", "-flags", "+bitexact", "-map_metadata", "-1"]
X264 = ["-c:v", "libx264", "-threads", "1", "-preset", "medium", "-pix_fmt", "yuv420p"]

MANY_FRAMES = 60000  # 100000 frames of 23 bytes would be 2.3 MB; the cap is 2 MB

# (file name, description) in the order written; README.md is generated from this.
written = []


def put(name, data, what):
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        f.write(data)
    written.append((name, len(data), what))


def ffmpeg(*args):
    subprocess.run(FF + list(args), check=True)


# ---------------------------------------------------------------------------------------------
# ISO BMFF (mp4/mov) boxes

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"udta"}
VISUAL_ENTRIES = {b"avc1", b"avc3", b"hvc1", b"hev1", b"mp4v"}


def boxes(b, start, end):
    """Yields (type, box start, payload start, box end) of the boxes in b[start:end]."""
    p = start
    while p + 8 <= end:
        size, kind = struct.unpack(">I4s", b[p:p + 8])
        head = 8
        if size == 1:
            size = struct.unpack(">Q", b[p + 8:p + 16])[0]
            head = 16
        elif size == 0:
            size = end - p
        if size < head or p + size > end:
            raise ValueError("bad box %r at %d" % (kind, p))
        yield kind, p, p + head, p + size
        p += size


def find_boxes(b, path, start=0, end=None):
    """All boxes at `path` (a list of 4-byte types), walking the structure: containers, the
    stsd entry list (after its 8-byte full-box header and count) and visual sample entries
    (children after the 78-byte VisualSampleEntry fields)."""
    end = len(b) if end is None else end
    found = []
    for kind, p, payload, e in boxes(b, start, end):
        if kind != path[0]:
            continue
        if len(path) == 1:
            found.append((p, payload, e))
            continue
        if kind == b"stsd":
            inner = payload + 8
        elif kind in VISUAL_ENTRIES:
            inner = payload + 78
        elif kind in CONTAINERS:
            inner = payload
        else:
            continue
        found.extend(find_boxes(b, path[1:], inner, e))
    return found


def one_box(b, path):
    found = find_boxes(b, [t.encode() for t in path.split("/")])
    if len(found) != 1:
        raise ValueError("expected one %s box, found %d" % (path, len(found)))
    return found[0]


def video_trak_path(b, suffix):
    """Boxes at moov/trak/<suffix> of the video track(s) (handler 'vide')."""
    result = []
    for _, payload, e in find_boxes(b, [b"moov", b"trak"]):
        hdlr = find_boxes(b, [b"mdia", b"hdlr"], payload, e)
        if hdlr and b[hdlr[0][1] + 8:hdlr[0][1] + 12] == b"vide":
            result.extend(find_boxes(b, [t.encode() for t in suffix.split("/")], payload, e))
    if len(result) != 1:
        raise ValueError("expected one video %s, found %d" % (suffix, len(result)))
    return result[0]


# ---------------------------------------------------------------------------------------------
# H.264 SPS rewriting (for the SPS that claims a huge frame)


class Bits:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def u(self, n):
        v = 0
        for _ in range(n):
            byte = self.data[self.pos >> 3]
            v = (v << 1) | ((byte >> (7 - (self.pos & 7))) & 1)
            self.pos += 1
        return v

    def ue(self):
        zeros = 0
        while self.u(1) == 0:
            zeros += 1
        return (1 << zeros) - 1 + self.u(zeros)


class BitWriter:
    def __init__(self):
        self.bits = []

    def u(self, n, v):
        self.bits.extend((v >> (n - 1 - i)) & 1 for i in range(n))

    def ue(self, v):
        v += 1
        n = v.bit_length()
        self.u(n - 1, 0)
        self.u(n, v)

    def bytes(self):
        bits = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


def unescape(nal):
    out = bytearray()
    zeros = 0
    for byte in nal:
        if zeros >= 2 and byte == 3:
            zeros = 0
            continue
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


def escape(rbsp):
    out = bytearray()
    zeros = 0
    for byte in rbsp:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


def sps_layout(rbsp):
    """Bit positions in an SPS RBSP: 'size' (pic_width_in_mbs_minus1), 'vui' (just after the
    cropping fields: vui_parameters_present_flag), 'timing' (timing_info_present_flag, or None),
    'end' (the rbsp_stop_one_bit, inclusive end); and 'direct8x8'."""
    r = Bits(rbsp)
    layout = {}
    profile = r.u(8)
    r.u(16)  # constraint flags, level
    r.ue()  # sps id
    if profile in (100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135):
        if r.ue() == 3:
            r.u(1)
        r.ue()
        r.ue()
        r.u(1)
        if r.u(1):
            raise ValueError("SPS with scaling matrices not supported")
    r.ue()  # log2_max_frame_num_minus4
    poc_type = r.ue()
    if poc_type == 0:
        r.ue()
    elif poc_type == 1:
        raise ValueError("pic_order_cnt_type 1 not supported")
    r.ue()  # max_num_ref_frames
    r.u(1)  # gaps_in_frame_num_allowed
    layout["size"] = r.pos
    r.ue()
    r.ue()
    if r.u(1) == 0:
        raise ValueError("interlaced SPS not supported")
    layout["direct8x8"] = r.u(1)
    if r.u(1):
        for _ in range(4):
            r.ue()
    layout["vui"] = r.pos
    layout["timing"] = None
    if r.u(1):
        if r.u(1) and r.u(8) == 255:  # aspect_ratio_info, extended SAR
            r.u(32)
        if r.u(1):  # overscan_info
            r.u(1)
        if r.u(1):  # video_signal_type
            r.u(4)
            if r.u(1):
                r.u(24)
        if r.u(1):  # chroma_loc_info
            r.ue()
            r.ue()
        layout["timing"] = r.pos
    # rbsp_stop_one_bit: the last 1 bit; what follows is zero padding.
    total = len(rbsp) * 8
    while not (rbsp[(total - 1) >> 3] >> (7 - ((total - 1) & 7))) & 1:
        total -= 1
    layout["end"] = total
    return layout


def copy_bits(w, rbsp, start, end):
    r = Bits(rbsp)
    r.pos = start
    for _ in range(end - start):
        w.u(1, r.u(1))


def sps_with_size(nal, width, height):
    """The SPS NAL `nal` rewritten to code a width x height frame (multiples of 16, no cropping,
    frame_mbs_only), keeping every other field and the VUI bit for bit."""
    assert width % 16 == 0 and height % 16 == 0
    rbsp = unescape(nal[1:])
    at = sps_layout(rbsp)
    w = BitWriter()
    copy_bits(w, rbsp, 0, at["size"])
    w.ue(width // 16 - 1)
    w.ue(height // 16 - 1)
    w.u(1, 1)  # frame_mbs_only
    w.u(1, at["direct8x8"])
    w.u(1, 0)  # no cropping
    copy_bits(w, rbsp, at["vui"], at["end"])
    return nal[:1] + escape(w.bytes())


def sps_without_timing(nal):
    """The SPS NAL `nal` with the VUI timing info (num_units_in_tick, time_scale,
    fixed_frame_rate_flag) removed: the stream no longer states a frame rate."""
    rbsp = unescape(nal[1:])
    at = sps_layout(rbsp)
    t = at["timing"]
    if t is None or not (rbsp[t >> 3] >> (7 - (t & 7))) & 1:
        raise ValueError("SPS has no timing info")
    w = BitWriter()
    copy_bits(w, rbsp, 0, t)
    w.u(1, 0)
    copy_bits(w, rbsp, t + 1 + 65, at["end"])
    return nal[:1] + escape(w.bytes())


def avcc_replace_sps(avcc, fn):
    """avcC payload bytes with its single SPS replaced by fn(sps)."""
    if avcc[5] & 0x1F != 1:
        raise ValueError("expected one SPS in avcC")
    n = struct.unpack(">H", avcc[6:8])[0]
    new = fn(avcc[8:8 + n])
    return avcc[:6] + struct.pack(">H", len(new)) + new + avcc[8 + n:]


def mp4_claiming_size(src, width, height, patch_sps):
    """src (an H.264 mp4) with the video tkhd and avc1 sample entry saying width x height, and,
    if patch_sps, the SPS in avcC too (then the decoder itself believes it)."""
    b = bytearray(src)
    _, _, tkhd_end = video_trak_path(b, "tkhd")
    struct.pack_into(">II", b, tkhd_end - 8, width << 16, height << 16)
    _, avc1, _ = video_trak_path(b, "mdia/minf/stbl/stsd/avc1")
    struct.pack_into(">HH", b, avc1 + 24, width, height)
    if not patch_sps:
        return bytes(b)
    avcc_box, avcc, avcc_end = video_trak_path(b, "mdia/minf/stbl/stsd/avc1/avcC")
    if b[avcc + 5] & 0x1F != 1:
        raise ValueError("expected one SPS in avcC")
    sps_len = struct.unpack(">H", b[avcc + 6:avcc + 8])[0]
    old = bytes(b[avcc + 8:avcc + 8 + sps_len])
    new = sps_with_size(old, width, height)
    delta = len(new) - len(old)
    # avcC and its ancestors (avc1, stsd, stbl, minf, mdia, trak, moov) grow by delta; moov is
    # before mdat (faststart), so the chunk offsets move by delta too. All of these start
    # before the SPS, stco comes after it (in stbl, after stsd).
    chain = ancestors(b, avcc_box)
    moov, _, _ = one_box(b, "moov")
    mdat, _, _ = one_box(b, "mdat")
    assert moov < mdat
    _, stco, _ = video_trak_path(b, "mdia/minf/stbl/stco")
    assert stco > avcc_end
    b[avcc + 6:avcc + 8 + sps_len] = struct.pack(">H", len(new)) + new
    for p in chain:
        struct.pack_into(">I", b, p, struct.unpack(">I", b[p:p + 4])[0] + delta)
    stco += delta
    count = struct.unpack(">I", b[stco + 4:stco + 8])[0]
    for i in range(count):
        q = stco + 8 + 4 * i
        struct.pack_into(">I", b, q, struct.unpack(">I", b[q:q + 4])[0] + delta)
    return bytes(b)


def ancestors(b, target):
    """Start offsets of the boxes enclosing offset `target`, and the box at `target` itself."""
    chain = []

    def descend(start, end):
        for kind, p, payload, e in boxes(b, start, end):
            if p <= target < e:
                chain.append(p)
                if p == target:
                    return
                if kind == b"stsd":
                    descend(payload + 8, e)
                elif kind in VISUAL_ENTRIES:
                    descend(payload + 78, e)
                elif kind in CONTAINERS:
                    descend(payload, e)
                return

    descend(0, len(b))
    assert chain and chain[-1] == target
    return chain


# ---------------------------------------------------------------------------------------------
# EBML (Matroska)

MKV_MASTERS = {0x18538067, 0x1F43B675, 0x1654AE6B, 0xAE, 0x114D9B74, 0x1C53BB6B, 0xBB,
               0x1549A966}
SEGMENT, CLUSTER, TRACKS, TRACK_ENTRY, INFO = 0x18538067, 0x1F43B675, 0x1654AE6B, 0xAE, 0x1549A966
CLUSTER_TIMESTAMP, SIMPLE_BLOCK, DEFAULT_DURATION, DURATION = 0xE7, 0xA3, 0x23E383, 0x4489
CRC32, VOID, CODEC_PRIVATE = 0xBF, 0xEC, 0x63A2


def ebml_vint(b, p, keep_marker=False):
    first = b[p]
    n = 1
    mask = 0x80
    while n <= 8 and not first & mask:
        n += 1
        mask >>= 1
    v = first if keep_marker else first & (mask - 1)
    for i in range(1, n):
        v = (v << 8) | b[p + i]
    return v, n


def ebml_elements(b, start, end):
    """Yields (id, element start, data start, data end) of the elements in b[start:end]."""
    p = start
    while p < end:
        eid, n1 = ebml_vint(b, p, keep_marker=True)
        size, n2 = ebml_vint(b, p + n1)
        if size == (1 << (7 * n2)) - 1:  # unknown size
            size = end - p - n1 - n2
        data = p + n1 + n2
        yield eid, p, data, data + size
        p = data + size


def ebml_find(b, path, start=0, end=None):
    end = len(b) if end is None else end
    found = []
    for eid, p, data, e in ebml_elements(b, start, end):
        if eid != path[0]:
            continue
        if len(path) == 1:
            found.append((p, data, e))
        elif eid in MKV_MASTERS:
            found.extend(ebml_find(b, path[1:], data, e))
    return found


def mkv_blocks(b):
    """[(cluster timestamp data range, [SimpleBlock data start, ...]), ...] in file order."""
    clusters = []
    for _, data, e in ebml_find(b, [SEGMENT, CLUSTER]):
        ts = None
        blocks = []
        for eid, _, d, de in ebml_elements(b, data, e):
            if eid == CLUSTER_TIMESTAMP:
                ts = (d, de)
            elif eid == SIMPLE_BLOCK:
                if b[d] & 0x80 == 0:
                    raise ValueError("multi-byte track number")
                blocks.append(d)
        clusters.append((ts, blocks))
    return clusters


def mkv_set_block_times(b, times_ms):
    """Rewrites, in place, each SimpleBlock's 16-bit relative timestamp so the blocks (in file
    order) get the absolute times times_ms (1 ms TimestampScale), keeping cluster timestamps."""
    i = 0
    for (ts_start, ts_end), blocks in mkv_blocks(b):
        cluster_ts = int.from_bytes(b[ts_start:ts_end], "big")
        for d in blocks:
            rel = times_ms[i] - cluster_ts
            if not -32768 <= rel <= 32767:
                raise ValueError("block time %d out of range for cluster %d" % (times_ms[i], cluster_ts))
            struct.pack_into(">h", b, d + 1, rel)
            i += 1
    assert i == len(times_ms), (i, len(times_ms))


def mkv_void(b, start, end):
    """Turns the element b[start:end] into an EBML Void of the same total length."""
    length = end - start
    assert 2 <= length <= 128
    b[start] = VOID
    b[start + 1] = 0x80 | (length - 2)  # 1-byte size
    b[start + 2:end] = bytes(length - 2)


def mkv_fix_crcs(b, start=0, end=None):
    """Recomputes every CRC-32 element (the first child of a master) after patching, so only the
    intended field is broken."""
    end = len(b) if end is None else end
    for eid, _, data, e in ebml_elements(b, start, end):
        if eid not in MKV_MASTERS:
            continue
        mkv_fix_crcs(b, data, e)
        children = list(ebml_elements(b, data, e))
        if children and children[0][0] == CRC32:
            _, _, crc_data, crc_end = children[0]
            struct.pack_into("<I", b, crc_data, zlib.crc32(bytes(b[crc_end:e])) & 0xFFFFFFFF)


# ---------------------------------------------------------------------------------------------
# GIF


def gif_image_record(delay):
    """Graphic control extension (delay in 1/100 s) + 1x1 image at (0,0), pixel index 0."""
    gce = b"\x21\xF9\x04\x00" + struct.pack("<H", delay) + b"\x00\x00"
    descriptor = b"\x2C" + struct.pack("<HHHH", 0, 0, 1, 1) + b"\x00"
    # LZW minimum code size 2: clear (4), 0, end (5), 3 bits each, LSB first -> 0x44 0x01.
    data = b"\x02\x02\x44\x01\x00"
    return gce + descriptor + data


def gif_header(width, height):
    palette = b"\x00\x00\x00\xFF\xFF\xFF"  # 2 colours
    lsd = struct.pack("<HH", width, height) + b"\x80\x00\x00"  # GCT, 2 entries
    return b"GIF89a" + lsd + palette


NETSCAPE_LOOP_FOREVER = b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"


# ---------------------------------------------------------------------------------------------


def cut_points(kind, src):
    """1, 7, 64 bytes, 10/25/50/75/99 %, and one structural boundary: GIF without its trailer,
    mp4 (faststart) ending with its moov (no media data), mov (moov at end) without its moov,
    mkv ending before the first Cluster (headers, no frames)."""
    size = len(src)
    points = [1, 7, 64] + [size * pct // 100 for pct in (10, 25, 50, 75, 99)]
    if kind == "gif":
        assert src[-1] == 0x3B
        points.append(size - 1)
    elif kind in ("mp4", "mov"):
        top = {t: p for t, p, _, _ in boxes(src, 0, size)}
        points.append(top[b"mdat"] if kind == "mp4" else top[b"moov"])
    else:
        (_, data, end), = ebml_find(src, [SEGMENT])
        points.append(min(p for eid, p, _, _ in ebml_elements(src, data, end) if eid == CLUSTER))
    return sorted({p for p in points if 0 < p < size})


MKV_NAMES = {0x114D9B74: "SeekHead", 0xEC: "Void", 0x1549A966: "Info", 0x1654AE6B: "Tracks",
             0x1254C367: "Tags", 0x1F43B675: "Cluster", 0x1C53BB6B: "Cues"}


def gif_blocks(b):
    """[(start, end, name)] of the top-level parts of a GIF."""
    parts = []
    p = 13
    gct = 3 << ((b[10] & 7) + 1) if b[10] & 0x80 else 0
    parts.append((0, p + gct, "the header/global palette"))
    p += gct
    images = 0

    def sub_blocks(q):
        while b[q]:
            q += b[q] + 1
        return q + 1

    while p < len(b):
        if b[p] == 0x21:
            end = sub_blocks(p + 2)
            parts.append((p, end, "an extension (0x%02X)" % b[p + 1]))
        elif b[p] == 0x2C:
            lct = 3 << ((b[p + 9] & 7) + 1) if b[p + 9] & 0x80 else 0
            end = sub_blocks(p + 10 + lct + 1)
            images += 1
            parts.append((p, end, "image %d" % images))
        else:
            parts.append((p, p + 1, "the trailer"))
            end = p + 1
        p = end
    return parts


def where(kind, src, cut):
    """Which top-level part of src the byte at offset cut (the first one dropped) belongs to."""
    if kind == "gif":
        parts = gif_blocks(src)
    elif kind in ("mp4", "mov"):
        parts = [(p, e, "the `%s` box" % t.decode()) for t, p, _, e in boxes(src, 0, len(src))]
    else:
        (_, data, end), = ebml_find(src, [SEGMENT])
        parts = [(0, data, "the EBML header/Segment header")]
        clusters = 0
        for eid, p, _, e in ebml_elements(src, data, end):
            name = "the " + MKV_NAMES.get(eid, "element 0x%X" % eid)
            if eid == CLUSTER:
                clusters += 1
                name = "Cluster %d" % clusters
            parts.append((p, e, name))
    for start, end, name in parts:
        if start <= cut < end:
            if cut == start:
                return "just before %s (everything before it intact)" % name
            return "inside %s (%d of its %d bytes kept)" % (name, cut - start, end - start)
    return "end of file"


def truncations_and_flips(kind, ext, src, seed):
    for cut in cut_points(kind, src):
        put("trunc_%s_%05d.%s" % (kind, cut, ext), src[:cut],
            "%s cut after %d of %d bytes (%.1f%%): %s" % (
                SOURCE_NAMES[kind], cut, len(src), 100.0 * cut / len(src), where(kind, src, cut)))
    for count in (1, 16, 256):
        rng = random.Random(seed * 1000 + count)
        b = bytearray(src)
        for pos in sorted(rng.sample(range(len(b)), count)):
            b[pos] ^= rng.randrange(1, 256)  # always changes the byte
        put("flip_%s_%03d.%s" % (kind, count, ext), bytes(b),
            "%s with %d random byte%s overwritten (seed %d)" % (
                SOURCE_NAMES[kind], count, "" if count == 1 else "s", seed * 1000 + count))


SOURCE_NAMES = {
    "gif": "`animated_loop.gif`",
    "mp4": "`counter.mp4`",
    "mov": "`rotated90.mov`",
    "mkv": "base mkv",
}


def main():
    for tool in ("ffmpeg",):
        if shutil.which(tool) is None:
            sys.exit("make-bad-fixtures: %s not found" % tool)
    os.makedirs(OUT, exist_ok=True)
    # Stale files of earlier runs (cut points follow the sources' sizes).
    for name in os.listdir(OUT):
        if name.startswith(("trunc_", "flip_")):
            os.remove(os.path.join(OUT, name))

    with open(SRC_GIF, "rb") as f:
        gif = f.read()
    with open(SRC_MP4, "rb") as f:
        mp4 = f.read()
    with open(SRC_MOV, "rb") as f:
        mov = f.read()

    tmp = tempfile.mkdtemp(prefix="clipkit-bad-")
    try:
        # Base mkv: H.264 160x120, 10 fps, 1 s, GOP 5, no B-frames (decode order = display
        # order), a cluster every 300 ms so timestamps can be patched per cluster.
        base_mkv = os.path.join(tmp, "base.mkv")
        ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", *X264,
               "-crf", "35", "-bf", "0", "-g", "5", "-keyint_min", "5", "-sc_threshold", "0",
               *BITEXACT, "-cluster_time_limit", "200", base_mkv)
        with open(base_mkv, "rb") as f:
            mkv = f.read()

        # Matroska files whose timestamps ffmpeg writes itself.
        neg = os.path.join(tmp, "neg.mkv")
        ffmpeg("-i", base_mkv, "-c", "copy", *BITEXACT, "-output_ts_offset", "-5",
               "-avoid_negative_ts", "disabled", neg)
        gap = os.path.join(tmp, "gap.mkv")
        ffmpeg("-i", base_mkv, "-c", "copy", *BITEXACT,
               "-bsf:v", "setts=ts=if(gte(N\\,5)\\,TS+36000000\\,TS)", gap)
        gap_huge = os.path.join(tmp, "gap_huge.mkv")
        ffmpeg("-i", base_mkv, "-c", "copy", *BITEXACT,
               "-bsf:v", "setts=ts=if(gte(N\\,5)\\,TS+4611686018427387904\\,TS)", gap_huge)
        with open(neg, "rb") as f:
            mkv_neg = f.read()
        with open(gap, "rb") as f:
            mkv_gap = f.read()
        with open(gap_huge, "rb") as f:
            mkv_gap_huge = bytearray(f.read())
    finally:
        shutil.rmtree(tmp)

    # 1. Truncations and flipped bytes.
    truncations_and_flips("gif", "gif", gif, 1)
    truncations_and_flips("mp4", "mp4", mp4, 2)
    truncations_and_flips("mov", "mov", mov, 3)
    truncations_and_flips("mkv", "mkv", mkv, 4)

    # 2. Zero length.
    put("empty.mp4", b"", "zero bytes, named .mp4")
    put("empty.gif", b"", "zero bytes, named .gif")

    # 3. GIF limits.
    put("huge_canvas.gif",
        gif_header(65535, 65535) + gif_image_record(10) + b"\x3B",
        "valid GIF89a whose logical screen is 65535x65535 (4.3 Gpixel); one 1x1 image at (0,0)")
    put("many_frames.gif",
        gif_header(1, 1) + NETSCAPE_LOOP_FOREVER + gif_image_record(1) * MANY_FRAMES + b"\x3B",
        "valid GIF89a, 1x1 canvas, %d one-pixel images, each with a graphic control block of "
        "delay 1 (10 ms), loops forever; %d frames because 100000 would be over 2 MB"
        % (MANY_FRAMES, MANY_FRAMES))

    # 4. Frame size claims (H.264 mp4).
    put("huge_frame.mp4", mp4_claiming_size(mp4, 30000, 30000, patch_sps=False),
        "counter.mp4 with the video `tkhd` and the `avc1` sample entry saying 30000x30000; the "
        "SPS still codes 160x120 (probing libavformat reports 160x120 after decoding; the "
        "container alone says 30000x30000)")
    put("huge_frame_sps.mp4", mp4_claiming_size(mp4, 30000, 30000, patch_sps=True),
        "as huge_frame.mp4, and the SPS in `avcC` rewritten to 1875x1875 macroblocks "
        "(30000x30000, no cropping); libavcodec rejects the SPS (over its size check), so no "
        "frame decodes")
    put("big_frame_sps16k.mp4", mp4_claiming_size(mp4, 16000, 16000, patch_sps=True),
        "`tkhd`, `avc1` and SPS all say 16000x16000 (256 Mpixel): under libavcodec's own size "
        "check, so the decoder allocates full-size frames (about 384 MB each in yuv420p) and "
        "conceals the missing macroblocks (the ffmpeg CLI, 1 thread, took 10 s and 2.8 GB "
        "RSS for 3 frames); only a frame-size limit checked before decoding stops it")

    # 5. Timestamps.
    b = bytearray(mkv)
    n_blocks = sum(len(blocks) for _, blocks in mkv_blocks(b))
    for (ts_start, ts_end), _ in mkv_blocks(b):
        b[ts_start:ts_end] = bytes(ts_end - ts_start)
    mkv_set_block_times(b, [0] * n_blocks)
    (_, dd_data, dd_end), = ebml_find(b, [SEGMENT, TRACKS, TRACK_ENTRY, DEFAULT_DURATION])
    dd_start = dd_data - 4  # 3-byte id, 1-byte size
    assert b[dd_start:dd_start + 3] == b"\x23\xE3\x83"
    mkv_void(b, dd_start, dd_end)
    (_, du_data, du_end), = ebml_find(b, [SEGMENT, INFO, DURATION])
    b[du_data:du_end] = bytes(du_end - du_data)  # 0.0 as float
    # The SPS's VUI timing info states 10 fps too: drop it (CodecPrivate shrinks by k bytes,
    # a k-byte Void follows it, so nothing else moves).
    (cp_start, cp_data, cp_end), = ebml_find(b, [SEGMENT, TRACKS, TRACK_ENTRY, CODEC_PRIVATE])
    assert cp_data - cp_start == 3 and cp_end - cp_data < 127
    avcc = avcc_replace_sps(bytes(b[cp_data:cp_end]), sps_without_timing)
    k = (cp_end - cp_data) - len(avcc)
    assert k >= 2
    b[cp_start + 2] = 0x80 | len(avcc)
    b[cp_data:cp_data + len(avcc)] = avcc
    mkv_void(b, cp_end - k, cp_end)
    mkv_fix_crcs(b)
    put("ts_zero_fps.mkv", bytes(b),
        "base mkv with no DefaultDuration (voided), no VUI timing info in the SPS, Segment "
        "Duration 0.0 and every one of the %d blocks at timestamp 0: no stated frame rate, "
        "zero duration, all frames at pts 0 with no packet duration (libavformat: "
        "avg_frame_rate 0/0, r_frame_rate a 1000/1 guess)" % n_blocks)

    put("ts_negative.mkv", mkv_neg,
        "base mkv remuxed with `-output_ts_offset -5 -avoid_negative_ts disabled`: one cluster "
        "at 0 whose blocks are at -5.0 ... -4.1 s; libavformat returns these packets with no "
        "pts/dts (AV_NOPTS_VALUE) and no start time")

    b = bytearray(mkv)
    order = [0, 700, 200, 200, 100, 900, 300, 300, 0, 950]
    mkv_set_block_times(b, order)
    mkv_fix_crcs(b)
    put("ts_nonmonotonic.mkv", bytes(b),
        "base mkv (no B-frames) with the block timestamps, in decode order, patched to %s ms: "
        "they go backwards (700 -> 200, 900 -> 300 -> 0), repeat (200, 300) and a frame after "
        "the second keyframe is earlier than that keyframe"
        % ", ".join(map(str, order)))

    put("ts_gap_10h.mkv", mkv_gap,
        "base mkv remuxed with the `setts` filter adding 36000 s to frames 5-9: frames at "
        "0-0.4 s, then 10 hours of nothing, then 36000.5-36000.9 s")

    # The setts expression is evaluated in doubles, so pin the later blocks exactly.
    clusters = mkv_blocks(mkv_gap_huge)
    huge = 1 << 62
    times = []
    for (ts_start, ts_end), blocks in clusters:
        cluster_ts = int.from_bytes(mkv_gap_huge[ts_start:ts_end], "big")
        if cluster_ts >= huge:
            mkv_gap_huge[ts_start:ts_end] = huge.to_bytes(ts_end - ts_start, "big")
            cluster_ts = huge
        for d in blocks:
            times.append(len(times) * 100 if cluster_ts < huge else huge + (len(times) - 5) * 100)
    mkv_set_block_times(mkv_gap_huge, times)
    mkv_fix_crcs(mkv_gap_huge)
    put("ts_gap_huge.mkv", bytes(mkv_gap_huge),
        "frames 0-4 at 0-0.4 s, frames 5-9 in a cluster at 2^62 ms (about 146 million years): "
        "pts fits int64 in the 1/1000 time base but overflows any conversion to a finer unit "
        "(ns, 90 kHz, microseconds)")

    b = bytearray(mp4)
    _, mdhd, _ = video_trak_path(b, "mdia/mdhd")
    version = b[mdhd]
    struct.pack_into(">I", b, mdhd + (20 if version == 1 else 12), 0)
    _, mvhd, _ = one_box(b, "moov/mvhd")
    struct.pack_into(">I", b, mvhd + (20 if b[mvhd] == 1 else 12), 0)
    put("zero_timescale.mp4", bytes(b),
        "counter.mp4 with the `mvhd` and video `mdhd` timescales set to 0 (every duration "
        "and timestamp becomes x/0; libavformat warns and uses 1, so the clip claims 4000 s at "
        "1/512 fps)")

    b = bytearray(mp4)
    _, stts, stts_end = video_trak_path(b, "mdia/minf/stbl/stts")
    count = struct.unpack(">I", b[stts + 4:stts + 8])[0]
    for i in range(count):
        struct.pack_into(">I", b, stts + 8 + 8 * i + 4, 0)
    put("zero_stts.mp4", bytes(b),
        "counter.mp4 with every `stts` sample delta 0: all 120 frames share one decode time, "
        "zero duration, no frame rate (B-frame `ctts` offsets remain; libavformat: r_frame_rate "
        "1/0, some packets flagged discard)")

    b = bytearray(mp4)
    _, elst, _ = video_trak_path(b, "edts/elst")
    _, mdhd, _ = video_trak_path(b, "mdia/mdhd")
    timescale = struct.unpack(">I", b[mdhd + 12:mdhd + 16])[0]
    assert b[elst] == 0 and struct.unpack(">I", b[elst + 4:elst + 8])[0] == 1
    old_media_time = struct.unpack(">i", b[elst + 12:elst + 16])[0]
    struct.pack_into(">i", b, elst + 12, old_media_time + 5 * timescale // 2)
    put("ts_negative_editlist.mp4", bytes(b),
        "counter.mp4 with the edit list starting 2.5 s into the media (media_time %d -> %d, "
        "timescale %d): libavformat starts at the keyframe at 2.0 s and returns its 15 "
        "packets with negative pts (-0.5 ... -0.03 s) flagged discard; 45 frames decode, the "
        "first at pts 0" % (old_media_time, old_media_time + 5 * timescale // 2, timescale))

    # 6. Audio only.
    rate = 8000
    samples = b"".join(struct.pack("<h", int(round(12000 * math.sin(2 * math.pi * 440 * i / rate))))
                       for i in range(rate // 2))
    wav_path = os.path.join(OUT, "audio_only.wav")
    with wave.open(wav_path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples)
    written.append(("audio_only.wav", os.path.getsize(wav_path),
                    "valid WAV, 440 Hz sine, 0.5 s, 8 kHz mono s16: no video stream"))

    # 7. A directory with a video name.
    os.makedirs(os.path.join(OUT, "dir.mp4"), exist_ok=True)
    with open(os.path.join(OUT, "dir.mp4", ".keep"), "wb"):
        pass
    written.append(("dir.mp4/", 0, "a directory named like a video (`.keep` inside so git keeps it)"))

    write_readme()
    total = sum(size for _, size, _ in written)
    print("make-bad-fixtures: wrote %d entries, %d bytes in %s" % (len(written), total, OUT))


def write_readme():
    lines = [
        "# Broken inputs",
        "",
        "Written by `Fixtures/make-bad-fixtures.py` (run by `make fixtures`, after",
        "`make-fixtures.sh`; deterministic, never needed at test time). Every command must handle",
        "every file here with exit code 0 or 1 (never a signal), a one-line message on 1, no output",
        "file on 1, within a time bound. Some files are valid (e.g. `huge_canvas.gif`,",
        "`many_frames.gif`, `audio_only.wav`) and only hit limits or have no video.",
        "",
        "Not committed: a FIFO (named e.g. `fifo.mp4`); the corpus test creates it at run time.",
        "",
        "Sources: the GIF is `Fixtures/gif-test-suite/gifs/animated_loop.gif` (100x100, 4 images),",
        "the mp4 `Fixtures/video/counter.mp4` (H.264 160x120, 120 frames, faststart), the mov",
        "`Fixtures/video/rotated90.mov` (H.264 320x240, 90 degree display matrix), the \"base",
        "mkv\" an H.264 160x120 10 fps 1 s testsrc2 file made by the script (GOP 5, no B-frames,",
        "a cluster every ~300 ms, CRC-32 elements; not kept). Truncated files say which",
        "top-level part (GIF block, mp4 box, Matroska element) the cut falls in.",
        "Matroska files patched in place have their CRC-32 elements recomputed, so only the",
        "described field is wrong.",
        "",
        "| File | Bytes | What is broken |",
        "|---|---:|---|",
    ]
    for name, size, what in written:
        lines.append("| `%s` | %d | %s |" % (name, size, what))
    lines.append("")
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
