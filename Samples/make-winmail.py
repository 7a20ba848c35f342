#!/usr/bin/python3
"""Writes a TNEF stream (winmail.dat) holding the given files, the way Outlook wraps attachments
when it sends "Rich Text": legacy attributes (attAttachRendData, attAttachTitle, attAttachData)
plus MAPI properties (attAttachment) with the long file name, per [MS-OXTNEF] §2.1.3.

    make-winmail.py OUT.dat FILE[=NAME] ...

NAME (default: the file's own name) is the long name; the legacy title is its 8.3 form, as
Outlook writes it. Debian's `tnef` reads the result (the tests compare what it extracts).
"""
import os
import struct
import sys

SIGNATURE = 0x223E9F78
LVL_MESSAGE, LVL_ATTACHMENT = 1, 2


def attribute(level, ident, data):
    return struct.pack("<BII", level, ident, len(data)) + data + struct.pack("<H", sum(data) & 0xFFFF)


def padded(data):
    return data + b"\0" * ((4 - len(data) % 4) % 4)


def mapi_string8(tag, text):
    value = text.encode("cp1252", "replace") + b"\0"
    # type PtypString8 (0x001E), tag; a variable-length value: count 1, length, bytes padded to 4.
    return struct.pack("<HHII", 0x001E, tag, 1, len(value)) + padded(value)


def mapi_unicode(tag, text):
    value = text.encode("utf-16-le") + b"\0\0"
    return struct.pack("<HHII", 0x001F, tag, 1, len(value)) + padded(value)


def mapi_int32(tag, number):
    return struct.pack("<HHI", 0x0003, tag, number)


def short_name(name):
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    stem = "".join(c for c in stem.upper() if c.isalnum())[:6] + "~1"
    return stem + ("." + ext.upper()[:3] if ext else "")


def winmail(files):
    out = struct.pack("<IH", SIGNATURE, 0x1234)
    out += attribute(LVL_MESSAGE, 0x00089006, struct.pack("<I", 0x00010000))      # attTnefVersion
    out += attribute(LVL_MESSAGE, 0x00069007, struct.pack("<II", 1252, 0))         # attOemCodepage
    out += attribute(LVL_MESSAGE, 0x00078008, b"IPM.Microsoft Mail.Note\0")        # attMessageClass
    for name, data in files:
        # attAttachRendData: file attachment, position -1, no picture size, flags 0.
        out += attribute(LVL_ATTACHMENT, 0x00069002, struct.pack("<HIHHI", 1, 0xFFFFFFFF, 0, 0, 0))
        out += attribute(LVL_ATTACHMENT, 0x00018010, short_name(name).encode("cp1252", "replace") + b"\0")
        out += attribute(LVL_ATTACHMENT, 0x0006800F, data)                          # attAttachData
        props = [mapi_int32(0x0E21, 0),                                             # PidTagAttachNumber
                 mapi_string8(0x3704, short_name(name)),                            # PidTagAttachFilename
                 mapi_unicode(0x3707, name)]                                        # PidTagAttachLongFilename
        out += attribute(LVL_ATTACHMENT, 0x00069005, struct.pack("<I", len(props)) + b"".join(props))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    files = []
    for arg in sys.argv[2:]:
        path, _, name = arg.partition("=")
        with open(path, "rb") as f:
            files.append((name or os.path.basename(path), f.read()))
    with open(sys.argv[1], "wb") as f:
        f.write(winmail(files))


if __name__ == "__main__":
    main()
