#!/usr/bin/env python3
"""Writes Fixtures/report/: GIFs made for `clipkit report --baseline`'s change classes.

base.gif       4 frames, 64x48, 100 ms each: a gradient with a square moving across
same.gif       base's pictures and timing, written again with frame 2 split in two 50 ms halves (identical)
retimed.gif    base's pictures, 200 ms each (timing-only)
reencoded.gif  base with every palette entry 3 levels lighter (re-encoded: SSIM >= 0.99, no pixel equal)
changed.gif    base with frame 3 holding a black box (visual)
filmstrip.gif  20 frames, 160x40, each one flat colour of its own, delays 20-100 ms varying (the report's GIF filmstrip)

Usage: python3 Fixtures/make-report-fixtures.py (Pillow). Deterministic; never needed at test time.
"""
import os
from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "report")


def frame(index, box=False):
    image = Image.new("RGB", (64, 48))
    pixels = image.load()
    for y in range(48):
        for x in range(64):
            pixels[x, y] = (x * 4, y * 5, 128 + index * 20)
    draw = ImageDraw.Draw(image)
    draw.rectangle([4 + index * 12, 16, 18 + index * 12, 30], fill=(250, 240, 40))
    if box:
        draw.rectangle([10, 8, 54, 40], fill=(0, 0, 0))
    return image


def save(name, frames, durations, shift=0):
    paletted = [f.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE) for f in frames]
    for image in paletted:
        # A re-encode's rounding: every palette entry a little off, no picture changed.
        image.putpalette([min(v + shift, 255) for v in image.getpalette()])
    paletted[0].save(os.path.join(OUT, name), save_all=True, append_images=paletted[1:], duration=durations,
                     loop=0, optimize=False, disposal=1)


def main():
    os.makedirs(OUT, exist_ok=True)
    frames = [frame(i) for i in range(4)]
    save("base.gif", frames, [100] * 4)
    # Pillow merges equal neighbours, so the split frame differs by nothing but is written as two.
    save("same.gif", [frames[0], frames[1], frames[1], frames[2], frames[3]], [100, 50, 50, 100, 100])
    save("retimed.gif", frames, [200] * 4)
    save("reencoded.gif", frames, [100] * 4, shift=3)
    save("changed.gif", [frames[0], frames[1], frame(2, box=True), frames[3]], [100] * 4)
    flat = [Image.new("RGB", (160, 40), filmstrip_colour(i)) for i in range(20)]
    save("filmstrip.gif", flat, [(i % 5 + 1) * 20 for i in range(20)])


def filmstrip_colour(index):
    """Far apart from one another, so a shrunk frame is told by its colour (the test has the same list)."""
    return (index * 12, 255 - index * 12, (index * 97) % 256)


main()
