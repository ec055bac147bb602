#!/usr/bin/env python3
"""Check a screenshot (PNG) of a review page, with the standard library only.

    check_png.py PNG [--size W H] [--min-ink FRACTION] [--colour HEX MIN]...

  * --size: the image is W x H pixels (the window Chromium was given);
  * --min-ink: at least FRACTION of the pixels differ from the most common
    colour (the page's background): the page is not blank;
  * --colour: at least MIN pixels have colour HEX (#rrggbb, each channel
    within 3): a mark colour, a border that must be drawn.
Prints one line on success; exits 1 on failure.
"""
import argparse
import struct
import sys
import zlib
from collections import Counter


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"check_png: {path}: not a PNG")
    at, idat, header = 8, [], None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        at += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace != 0:
        raise SystemExit(f"check_png: {path}: only 8-bit RGB/RGBA, not interlaced (got {header})")
    step = 3 if colour_type == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * step
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(step, stride):
                row[i] = (row[i] + row[i - step]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, previous))
        elif kind == 3:
            for i in range(stride):
                left = row[i - step] if i >= step else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - step] if i >= step else 0
                b = previous[i]
                c = previous[i - step] if i >= step else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(row))
        previous = row
    counts = Counter()
    for row in rows:
        for x in range(0, stride, step):
            counts[row[x:x + 3]] += 1
    return width, height, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("png")
    parser.add_argument("--size", nargs=2, type=int)
    parser.add_argument("--min-ink", type=float, default=0.02)
    parser.add_argument("--colour", nargs=2, action="append", default=[], metavar=("HEX", "MIN"))
    args = parser.parse_args()
    width, height, counts = read_png(args.png)
    problems = []
    if args.size and [width, height] != args.size:
        problems.append(f"{width}x{height} pixels, expected {args.size[0]}x{args.size[1]}")
    total = width * height
    background, background_count = counts.most_common(1)[0]
    ink = 1 - background_count / total
    if ink < args.min_ink:
        problems.append(f"blank: only {ink:.1%} of the pixels differ from the background #{background.hex()}")
    found = {}
    for hexcolour, minimum in args.colour:
        want = bytes.fromhex(hexcolour.lstrip("#"))
        n = sum(c for rgb, c in counts.items() if all(abs(rgb[i] - want[i]) <= 3 for i in range(3)))
        found[hexcolour] = n
        if n < int(minimum):
            problems.append(f"colour {hexcolour}: {n} pixels, expected at least {minimum}")
    if problems:
        for p in problems:
            print(f"check_png: {args.png}: {p}", file=sys.stderr)
        sys.exit(1)
    shown = ", ".join(f"{h} {n} px" for h, n in found.items())
    print(f"check_png: {args.png}: ok: {width}x{height}, {ink:.1%} ink{', ' + shown if shown else ''}")


if __name__ == "__main__":
    main()
