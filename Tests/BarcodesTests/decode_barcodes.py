#!/usr/bin/python3
"""Decode many barcode images in one process with zxing-cpp (Debian python3-zxing-cpp).

stdin: one "ID<TAB>PATH" per line; PATH is a binary PGM (P5, 8-bit grey) written by the tests,
or a ".term" file: terminal output (UTF-8) whose half-block barcode lines (those drawn black on
white, ESC[38;5;16;48;5;231m ... ESC[0m) are turned back into pixels, 4 per module.
stdout: one "ID<TAB>FORMAT<TAB>HEX" line per symbol found (FORMAT as zxing names it: QRCode,
Aztec, PDF417, Code128, ...; HEX = the symbol's raw decoded BYTES, not its text), or
"ID<TAB>NONE<TAB>" when nothing decodes, or "ID<TAB>ERROR<TAB>reason".
All formats are searched, so a symbol drawn in the wrong symbology shows up as such.
Run by /usr/bin/python3 (Debian's module is built for it, not for a pyenv python).
"""
import sys

try:
    import numpy
    import zxingcpp
except ImportError as e:  # the Swift test turns this into a failure naming the package
    print("MISSING\t%s" % e, flush=True)
    sys.exit(3)


def read_pgm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:  # magic, width, height, maxval; no comments in our files
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1  # the single white-space byte after maxval
    if fields[0] != b"P5" or fields[3] != b"255":
        raise ValueError("not an 8-bit binary PGM")
    width, height = int(fields[1]), int(fields[2])
    pixels = numpy.frombuffer(data, dtype=numpy.uint8, count=width * height, offset=pos)
    return pixels.reshape((height, width))


ON, OFF = "\x1b[38;5;16;48;5;231m", "\x1b[0m"
HALF = {"\u2588": (1, 1), "\u2580": (1, 0), "\u2584": (0, 1), " ": (0, 0)}


def read_terminal(path, scale=4):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rows = []
    for line in text.split("\n"):
        start = line.find(ON)
        if start < 0:
            continue
        end = line.find(OFF, start)
        body = line[start + len(ON):end if end >= 0 else len(line)]
        top, bottom = [], []
        for ch in body:
            t, b = HALF.get(ch, (0, 0))
            top.append(t)
            bottom.append(b)
        rows += [top, bottom]
    if not rows:
        raise ValueError("no black-on-white barcode lines in the terminal output")
    width = max(len(r) for r in rows)
    grid = numpy.full((len(rows), width), 255, dtype=numpy.uint8)
    for y, r in enumerate(rows):
        for x, dark in enumerate(r):
            if dark:
                grid[y, x] = 0
    return numpy.kron(grid, numpy.ones((scale, scale), dtype=numpy.uint8))


def main():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        ident, path = line.split("\t", 1)
        try:
            image = read_terminal(path) if path.endswith(".term") else read_pgm(path)
            results = zxingcpp.read_barcodes(image)
        except Exception as e:  # noqa: BLE001 - report, keep decoding the others
            print("%s\tERROR\t%s" % (ident, str(e).replace("\t", " ").replace("\n", " ")), flush=True)
            continue
        if not results:
            print("%s\tNONE\t" % ident, flush=True)
        for r in results:
            print("%s\t%s\t%s" % (ident, r.format.name, bytes(r.bytes).hex()), flush=True)


main()
