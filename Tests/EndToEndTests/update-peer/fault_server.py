"""A local HTTP(S) server for passconduit's `update` tests: TLS and hostile answers.

fault_server.py --port-file F [--cert C --key K] --passes DIR
GET /…/v1/passes/{type}/{serial} answers by serial:
  ok-*       DIR/{serial}.pkpass with Last-Modified (304 when If-Modified-Since matches)
  garbage    200, 3 000 random bytes
  truncated  200, Content-Length 50 000, 1 000 bytes, then the connection closes
  huge       200, Content-Length 200 000 000, zeros streamed until the client stops
  endless    200, chunked, zeros streamed until the client stops (no length at all)
  trickle    200, Content-Length 4 000, one byte every 0.5 s
  reset      200, Content-Length 50 000, 1 000 bytes, then a TCP reset
  elsewhere  302 to the same path on another host (localhost.localdomain → 127.0.0.2)
  busy       503 with Retry-After: 120
Anything else 404. Every request line is appended to DIR/requests.log (never the Authorization).
"""
import argparse, email.utils, http.server, os, socket, ssl, struct, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("--port-file", required=True)
parser.add_argument("--cert")
parser.add_argument("--key")
parser.add_argument("--passes", required=True)
args = parser.parse_args()
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        with lock, open(os.path.join(args.passes, "requests.log"), "a") as log:
            log.write(f"{self.command} {self.path} auth={'Authorization' in self.headers} ims={self.headers.get('If-Modified-Since')}\n")
        serial = self.path.rstrip("/").rsplit("/", 1)[-1]
        try:
            getattr(self, "serve_" + serial.split("-")[0].replace(".", "_"), self.serve_missing)(serial)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            pass

    def head(self, status, length=None, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.apple.pkpass")
        if length is not None:
            self.send_header("Content-Length", str(length))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()

    def serve_missing(self, serial):
        self.head(404, 0)

    def serve_ok(self, serial):
        path = os.path.join(args.passes, serial + ".pkpass")
        if not os.path.exists(path):
            return self.serve_missing(serial)
        modified = email.utils.formatdate(int(os.path.getmtime(path)), usegmt=True)
        if self.headers.get("If-Modified-Since") == modified:
            return self.head(304, 0, [("Last-Modified", modified)])
        body = open(path, "rb").read()
        self.head(200, len(body), [("Last-Modified", modified)])
        self.wfile.write(body)

    def serve_garbage(self, serial):
        body = os.urandom(3000)
        self.head(200, len(body))
        self.wfile.write(body)

    def serve_truncated(self, serial):
        self.head(200, 50_000)
        self.wfile.write(b"PK\x03\x04" + b"\0" * 996)
        self.wfile.flush()
        self.close_connection = True

    def serve_huge(self, serial):
        self.head(200, 200_000_000)
        chunk = b"\0" * 65536
        for _ in range(200_000_000 // 65536):
            self.wfile.write(chunk)

    def serve_endless(self, serial):
        self.head(200, None, [("Transfer-Encoding", "chunked")])
        chunk = b"\0" * 65536
        framed = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
        for _ in range(4000):
            self.wfile.write(framed)

    def serve_trickle(self, serial):
        self.head(200, 4000)
        for _ in range(4000):
            self.wfile.write(b"P")
            self.wfile.flush()
            time.sleep(0.5)

    def serve_reset(self, serial):
        self.head(200, 50_000)
        self.wfile.write(b"PK\x03\x04" + b"\0" * 996)
        self.wfile.flush()
        raw = self.connection
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        raw.close()
        self.close_connection = True

    def serve_elsewhere(self, serial):
        port = self.server.server_address[1]
        scheme = "https" if args.cert else "http"
        self.head(302, 0, [("Location", f"{scheme}://127.0.0.2:{port}{self.path}")])

    def serve_busy(self, serial):
        self.send_response(503)
        self.send_header("Retry-After", "120")
        self.send_header("Content-Length", "0")
        self.end_headers()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
if args.cert:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(args.port_file + ".tmp", args.port_file)
server.serve_forever()
