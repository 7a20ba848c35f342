#!/usr/bin/python3
"""Decode many barcode images in one process with zxing-cpp (Debian python3-zxing-cpp).

stdin: one "ID<TAB>PATH" per line; PATH is a binary PGM (P5, 8-bit grey) written by the tests.
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


def main():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        ident, path = line.split("\t", 1)
        try:
            results = zxingcpp.read_barcodes(read_pgm(path))
        except Exception as e:  # noqa: BLE001 - report, keep decoding the others
            print("%s\tERROR\t%s" % (ident, str(e).replace("\t", " ").replace("\n", " ")), flush=True)
            continue
        if not results:
            print("%s\tNONE\t" % ident, flush=True)
        for r in results:
            print("%s\t%s\t%s" % (ident, r.format.name, bytes(r.bytes).hex()), flush=True)


main()
