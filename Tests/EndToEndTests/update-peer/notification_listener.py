#!/usr/bin/python3
"""A desktop notification service for tests: owns org.freedesktop.Notifications on the bus at
ADDRESS (a private `dbus-daemon --session`), answers each Notify with an id, and appends
{"app": …, "summary": …, "body": …, "actions": "key|label|…"} as a JSON line to OUT. While a
file OUT.click exists it "clicks" the newest notification: broadcasts ActionInvoked(id, "default")
every 0.3 s, as GNOME Shell does when a notification is clicked. Speaks the D-Bus wire protocol itself
(the test machine has no python3-dbus or python3-gi). Writes OUT.ready once it owns the name.
    notification_listener.py ADDRESS OUT
"""
import json, os, select, socket, struct, sys


class Writer:
    def __init__(self):
        self.b = bytearray()

    def pad(self, n):
        while len(self.b) % n:
            self.b.append(0)

    def y(self, v):
        self.b.append(v)

    def u(self, v):
        self.pad(4)
        self.b += struct.pack("<I", v)

    def s(self, v):
        e = v.encode()
        self.u(len(e))
        self.b += e + b"\0"

    def g(self, v):
        e = v.encode()
        self.y(len(e))
        self.b += e + b"\0"


def message(kind, serial, fields, signature, body):
    w = Writer()
    w.b += b"l"
    w.y(kind); w.y(0); w.y(1)
    w.u(len(body)); w.u(serial)
    if signature:
        fields = fields + [(8, "g", signature)]
    at = len(w.b)
    w.u(0)
    start = len(w.b)
    for code, sig, value in fields:
        w.pad(8)
        w.y(code)
        w.g(sig)
        {"s": w.s, "o": w.s, "u": w.u, "g": w.g}[sig](value)
    struct.pack_into("<I", w.b, at, len(w.b) - start)
    w.pad(8)
    return bytes(w.b) + body


class Reader:
    def __init__(self, data, pos=0):
        self.d, self.p = data, pos

    def align(self, n):
        self.p += (-self.p) % n

    def y(self):
        v = self.d[self.p]; self.p += 1
        return v

    def u(self):
        self.align(4)
        v = struct.unpack_from("<I", self.d, self.p)[0]; self.p += 4
        return v

    def s(self):
        n = self.u()
        v = self.d[self.p:self.p + n].decode(); self.p += n + 1
        return v

    def g(self):
        n = self.y()
        v = self.d[self.p:self.p + n].decode(); self.p += n + 1
        return v


def read_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_message(sock):
    head = read_exactly(sock, 16)
    assert head[0:1] == b"l", "little-endian messages only"
    kind = head[1]
    body_length, serial, fields_length = struct.unpack_from("<III", head, 4)
    rest = fields_length + (-(16 + fields_length)) % 8 + body_length
    data = head + read_exactly(sock, rest)
    r = Reader(data, 16)
    fields = {}
    end = 16 + fields_length
    while r.p < end:
        r.align(8)
        code = r.y()
        sig = r.g()
        fields[code] = {"s": r.s, "o": r.s, "u": r.u, "g": r.g}[sig]()
    body_start = end + (-end) % 8
    return kind, serial, fields, data[body_start:body_start + body_length]


def main():
    address, out = sys.argv[1], sys.argv[2]
    path = dict(part.split("=", 1) for part in address.split(":", 1)[1].split(","))["path"]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
    line = b""
    while not line.endswith(b"\r\n"):
        line += sock.recv(1)
    assert line.startswith(b"OK"), line
    sock.sendall(b"BEGIN\r\n")
    bus = [(1, "o", "/org/freedesktop/DBus"), (2, "s", "org.freedesktop.DBus"), (6, "s", "org.freedesktop.DBus")]
    sock.sendall(message(1, 1, bus + [(3, "s", "Hello")], "", b""))
    w = Writer(); w.s("org.freedesktop.Notifications"); w.u(4)   # DBUS_NAME_FLAG_DO_NOT_QUEUE
    sock.sendall(message(1, 2, bus + [(3, "s", "RequestName")], "su", bytes(w.b)))
    serial, notified = 10, 0
    while True:
        if not select.select([sock], [], [], 0.3)[0]:
            if notified and os.path.exists(out + ".click"):
                serial += 1
                w = Writer(); w.u(notified); w.s("default")
                signal = [(1, "o", "/org/freedesktop/Notifications"), (2, "s", "org.freedesktop.Notifications"),
                          (3, "s", "ActionInvoked")]
                sock.sendall(message(4, serial, signal, "us", bytes(w.b)))
            continue
        kind, number, fields, body = read_message(sock)
        if kind == 2 and fields.get(5) == 2:
            open(out + ".ready", "w").close()
        if kind != 1:
            continue
        serial += 1
        reply_to = [(5, "u", number), (6, "s", fields.get(7, ""))]
        if fields.get(3) == "Notify":
            r = Reader(body)
            app, _, _, summary, text = r.s(), r.u(), r.s(), r.s(), r.s()
            length = r.u()
            end, actions = r.p + length, []
            while r.p < end:
                actions.append(r.s())
            with open(out, "a") as f:
                f.write(json.dumps({"app": app, "summary": summary, "body": text, "actions": "|".join(actions)}) + "\n")
            notified += 1
            w = Writer(); w.u(notified)
            sock.sendall(message(2, serial, reply_to, "u", bytes(w.b)))
        else:
            sock.sendall(message(3, serial, reply_to + [(4, "s", "org.freedesktop.DBus.Error.UnknownMethod")], "", b""))


if __name__ == "__main__":
    main()
