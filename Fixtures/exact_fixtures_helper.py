#!/usr/bin/env python3
"""Byte edits for the fixtures of Fixtures/make-exact-fixtures.sh (files whose metadata lies).

  exact_fixtures_helper.py sync-table FILE SAMPLE...   make the video track's sync-sample table
      (stss) list exactly these 1-based SAMPLEs: P-frames the container then calls keyframes, or
      real keyframes it does not.
  exact_fixtures_helper.py blank-first FILE     overwrite the video track's first sample with
      zeros (same size): the frames before the next keyframe cannot be decoded.
  exact_fixtures_helper.py mkv-no-durations FILE   turn a Matroska file's DefaultDuration and
      BlockDuration elements into Void elements of the same size, and set the segment Duration
      to the last block's timestamp: a stream whose frames carry no durations.
"""
import struct
import sys

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf"}


def boxes(data, start, end):
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size < 8 or at + size > end:
            raise SystemExit("bad box at %d" % at)
        yield at, size, kind
        at += size


def find_path(data, start, end, path):
    """Offsets of the boxes along `path` (a list of box types), first match at each level."""
    for at, size, kind in boxes(data, start, end):
        if kind == path[0]:
            if len(path) == 1:
                return [at]
            rest = find_path(data, at + 8, at + size, path[1:])
            if rest:
                return [at] + rest
    return None


def video_stbl_path(data):
    moov = find_path(data, 0, len(data), [b"moov"])[0]
    msize = struct.unpack(">I", data[moov:moov + 4])[0]
    for at, size, kind in boxes(data, moov + 8, moov + msize):
        if kind != b"trak":
            continue
        hdlr = find_path(data, at + 8, at + size, [b"mdia", b"hdlr"])
        if hdlr and data[hdlr[-1] + 16:hdlr[-1] + 20] == b"vide":
            stbl = find_path(data, at + 8, at + size, [b"mdia", b"minf", b"stbl"])
            return [moov, at] + stbl
    raise SystemExit("no video track")


def sync_table(path, samples):
    data = bytearray(open(path, "rb").read())
    if data.find(b"mdat") < data.find(b"moov"):
        pass  # moov after mdat: chunk offsets stay valid when moov grows
    else:
        raise SystemExit("moov must follow mdat (no faststart)")
    chain = video_stbl_path(data)
    stbl = chain[-1]
    ssize = struct.unpack(">I", data[stbl:stbl + 4])[0]
    stss = find_path(data, stbl + 8, stbl + ssize, [b"stss"])[0]
    size, _, _, count = struct.unpack(">I4sII", data[stss:stss + 16])
    entries = list(struct.unpack(">%dI" % count, data[stss + 16:stss + 16 + 4 * count]))
    entries = sorted(set(samples))
    body = struct.pack(">4sII", b"stss", 0, len(entries)) + struct.pack(">%dI" % len(entries), *entries)
    new = struct.pack(">I", 4 + len(body)) + body
    grow = len(new) - size
    data[stss:stss + size] = new
    for at in chain:
        old = struct.unpack(">I", data[at:at + 4])[0]
        data[at:at + 4] = struct.pack(">I", old + grow)
    open(path, "wb").write(data)


def table(data, stbl, kind):
    ssize = struct.unpack(">I", data[stbl:stbl + 4])[0]
    at = find_path(data, stbl + 8, stbl + ssize, [kind])[0]
    return at


def blank_first(path):
    data = bytearray(open(path, "rb").read())
    stbl = video_stbl_path(data)[-1]
    stsz = table(data, stbl, b"stsz")
    uniform, count = struct.unpack(">II", data[stsz + 12:stsz + 20])
    size = uniform or struct.unpack(">I", data[stsz + 20:stsz + 24])[0]
    stco = table(data, stbl, b"stco")
    offset = struct.unpack(">I", data[stco + 16:stco + 20])[0]
    data[offset:offset + size] = bytes(size)
    open(path, "wb").write(data)


MASTERS = {0x18538067, 0x1549A966, 0x1654AE6B, 0xAE, 0x1F43B675, 0xA0}


def vint(data, at, keep_marker):
    first = data[at]
    length = 1
    while length <= 8 and not first & (0x80 >> (length - 1)):
        length += 1
    value = first if keep_marker else first & (0xFF >> length)
    for b in data[at + 1:at + length]:
        value = value << 8 | b
    return value, length


def ebml(data, start, end):
    at = start
    while at < end:
        ident, n = vint(data, at, True)
        size, m = vint(data, at + n, False)
        if size == (1 << (7 * m)) - 1:  # unknown size: up to the end of the parent
            size = end - at - n - m
        yield at, ident, at + n + m, min(at + n + m + size, end)
        at = at + n + m + size


def mkv_no_durations(path):
    data = bytearray(open(path, "rb").read())
    state = {"last": 0, "cluster": 0, "duration": None, "scale": 1000000}

    def walk(start, end):
        for at, ident, body, stop in ebml(data, start, end):
            if ident in (0x23E383, 0x9B):
                total = stop - at
                data[at:stop] = bytes([0xEC, 0x80 | (total - 2)]) + bytes(total - 2)
            elif ident == 0x4489:
                state["duration"] = (body, stop - body)
            elif ident == 0xE7:
                state["cluster"] = int.from_bytes(data[body:stop], "big")
            elif ident in (0xA3, 0xA1):  # SimpleBlock, Block: track vint, int16 timestamp
                _, n = vint(data, body, False)
                rel = struct.unpack(">h", data[body + n:body + n + 2])[0]
                state["last"] = max(state["last"], state["cluster"] + rel)
            elif ident in MASTERS:
                walk(body, stop)

    walk(0, len(data))
    body, size = state["duration"]
    data[body:body + size] = struct.pack(">f" if size == 4 else ">d", float(state["last"]))
    open(path, "wb").write(data)


def main(argv):
    if len(argv) == 3 and argv[1] == "mkv-no-durations":
        mkv_no_durations(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "blank-first":
        blank_first(argv[2])
        return 0
    if len(argv) >= 4 and argv[1] == "sync-table":
        sync_table(argv[2], [int(s) for s in argv[3:]])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
