#!/usr/bin/env python3
"""Which modules' data the dynamic loader has to relocate at every start of a static PIE.

Usage: Benchmarks/filter/relocated-pages.py BINARY   (an unstripped build, e.g. .build-static/release/passconduit)

Decodes the packed relative relocations (.relr.dyn, as lld writes them with --pack-dyn-relocs=relr),
finds the symbol each relocated word belongs to (nm), names its module from the symbol (Swift
mangling $s<len><Module>, the stdlib's $sS/$ss, C++ namespaces, a few C prefixes) and prints, per
module, the relocated words and the 4 KB pages they touch. Every touched page is a copy-on-write
page fault at start; a page shared by two modules counts for both, so the page column adds up to
more than the total; the "only" column counts the pages that would not be touched without the module.
"""
import bisect
import collections
import re
import struct
import subprocess
import sys


def sections(path):
    out = {}
    for line in subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, check=True).stdout.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            out[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16))
    return out


def relr_addresses(data, offset, size):
    """RELR: an even entry is an address; an odd one is a bitmap of the 63 words after the last."""
    addresses, where = [], 0
    for entry in struct.unpack_from("<%dQ" % (size // 8), data, offset):
        if entry & 1 == 0:
            addresses.append(entry)
            where = entry + 8
        else:
            bits, i = entry >> 1, 0
            while bits:
                if bits & 1:
                    addresses.append(where + i * 8)
                bits >>= 1
                i += 1
            where += 63 * 8
    return addresses


def module(symbol):
    if symbol.startswith("got."):   # Swift's indirect reference to a symbol: count it with the module referred to
        return module(symbol[4:]) + " (references)"
    if symbol.startswith(("$sS", "$ss")):
        return "Swift stdlib"
    m = re.match(r"^\$s(\d+)(\w+)", symbol)
    if m:
        return "Swift " + m.group(2)[: int(m.group(1))]
    if symbol.startswith("$s"):
        return "Swift (other)"
    m = re.match(r"_Z(?:N|T.N?)K?(\d+)(\w+)", symbol)
    if m:
        return "C++ " + m.group(2)[: int(m.group(1))]
    if symbol.startswith("_Z"):
        return "C++ (other)"
    for prefix in ("CNIOBoringSSL", "CCryptoBoringSSL", "sqlite3", "_dispatch"):
        if symbol.startswith(prefix):
            return "C " + prefix
    return "C (other)"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    data = open(path, "rb").read()
    secs = sections(path)
    if ".relr.dyn" not in secs:
        sys.exit(f"{path}: no .relr.dyn section (not a static PIE linked with packed relocations?)")
    _, offset, size = secs[".relr.dyn"]
    addresses = relr_addresses(data, offset, size)
    symbols = []
    for line in subprocess.run(["nm", "-n", "--defined-only", path], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "dDrRbBvVsS":
            symbols.append((int(parts[0], 16), parts[2]))
    symbols.sort()
    starts = [s[0] for s in symbols]
    words = collections.Counter()
    pages = collections.defaultdict(set)
    owners = collections.defaultdict(set)   # page -> modules with a relocated word on it
    for address in addresses:
        i = bisect.bisect_right(starts, address) - 1
        name = module(symbols[i][1]) if i >= 0 else "(no symbol)"
        words[name] += 1
        pages[name].add(address >> 12)
        owners[address >> 12].add(name)
    print(f"{len(addresses)} relocated words on {len({a >> 12 for a in addresses})} pages")
    print(f"{'words':>7} {'pages':>5} {'only':>5}  module   (only: pages no other module's word shares)")
    try:
        for name, count in words.most_common():
            alone = sum(1 for page in pages[name] if owners[page] == {name})
            print(f"{count:7d} {len(pages[name]):5d} {alone:5d}  {name}")
    except BrokenPipeError:   # | head
        pass


if __name__ == "__main__":
    main()
