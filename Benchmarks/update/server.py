"""Loopback PassKit pass endpoint for the update benchmark: asyncio, HTTP/1.1 keep-alive.
GET …/v1/passes/{type}/{serial}: 304 when If-Modified-Since or If-None-Match is present, else 200
with PASSES/{serial}.pkpass and a fixed Last-Modified. Prints nothing; counts requests in
PASSES/requests.count at exit (SIGTERM)."""
import asyncio, os, signal, sys

port, passes = int(sys.argv[1]), sys.argv[2]
LM = b"Wed, 25 Nov 2026 00:00:00 GMT"
count = 0
cache = {}


async def handle(reader, writer):
    global count
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            count += 1
            lines = head.split(b"\r\n")
            path = lines[0].split(b" ")[1].decode()
            lower = [l.lower() for l in lines[1:]]
            conditional = any(l.startswith(b"if-modified-since:") or l.startswith(b"if-none-match:") for l in lower)
            if conditional:
                writer.write(b"HTTP/1.1 304 Not Modified\r\nLast-Modified: " + LM + b"\r\nContent-Length: 0\r\n\r\n")
            else:
                serial = path.rsplit("/", 1)[-1]
                body = cache.get(serial)
                if body is None:
                    try:
                        body = cache[serial] = open(os.path.join(passes, serial + ".pkpass"), "rb").read()
                    except OSError:
                        body = None
                if body is None:
                    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                else:
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.apple.pkpass\r\nLast-Modified: " + LM
                                 + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", port, reuse_address=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()
    open(os.path.join(passes, "requests.count"), "w").write(str(count))

asyncio.run(main())
