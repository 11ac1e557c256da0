"""Removes a PNG's colour chunks (gAMA, cHRM, sRGB, iCCP, cICP) in place: libpng's reader would convert
the pixels by them, and the reference PNGs must hold the pixels ffmpeg wrote.
Usage: python3 Fixtures/strip_png_colour.py FILE.png"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
out, i = data[:8], 8
while i < len(data):
    n = struct.unpack(">I", data[i:i + 4])[0]
    if data[i + 4:i + 8] not in (b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"cICP"):
        out += data[i:i + 12 + n]
    i += 12 + n
open(sys.argv[1], "wb").write(out)
