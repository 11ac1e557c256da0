#!/usr/bin/env python3
"""Writes raw rgb24 frames to stdout for Fixtures/make-fixtures.sh.

  counter W H N      N solid frames; frame n has R = 8 + 16*(n % 16),
                     G = 8 + 16*((n // 16) % 16), B = 200.
  quadrants W H N    N identical frames: top-left red, top-right green,
                     bottom-left blue, bottom-right white.
  vfr_setpts MS      prints a setpts expression mapping frame index N to the
                     given comma-separated times in milliseconds; use it after
                     settb=1/1000 (integers, so no float truncation).
"""
import sys


def counter_colour(n):
    return (8 + 16 * (n % 16), 8 + 16 * ((n // 16) % 16), 200)


def counter(w, h, count, out):
    for n in range(count):
        out.write(bytes(counter_colour(n)) * (w * h))


def quadrants(w, h, count, out):
    hw, hh = w // 2, h // 2
    top = bytes((255, 0, 0)) * hw + bytes((0, 255, 0)) * (w - hw)
    bottom = bytes((0, 0, 255)) * hw + bytes((255, 255, 255)) * (w - hw)
    frame = top * hh + bottom * (h - hh)
    for _ in range(count):
        out.write(frame)


def vfr_setpts(times):
    ms = [int(t) for t in times.split(",") if t.strip()]
    expr = str(ms[-1])
    for i in range(len(ms) - 2, -1, -1):
        expr = "if(eq(N\\,%d)\\,%d\\,%s)" % (i, ms[i], expr)
    print(expr)


def main(argv):
    if len(argv) == 3 and argv[1] == "vfr_setpts":
        vfr_setpts(argv[2])
        return 0
    if len(argv) != 5 or argv[1] not in ("counter", "quadrants"):
        sys.stderr.write(__doc__)
        return 2
    w, h, n = int(argv[2]), int(argv[3]), int(argv[4])
    out = sys.stdout.buffer
    (counter if argv[1] == "counter" else quadrants)(w, h, n, out)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
