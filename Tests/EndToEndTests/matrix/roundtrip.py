"""The Matrix bot against a real Synapse on loopback (issue 42), run by MatrixBotTests.

Starts Synapse (SQLite) in WORK, registers alice, bob and the bot, starts Bots/matrix/passconduit-matrix
with the passconduit under test, and plays alice (and bob) with matrix-nio: files under several labels
in a two-member plain room, a three-member group room and an encrypted direct message; the commands
help, list, add, show. Prints one JSON object: {"failures": [...], "figures": {...}}; exits 0 when it
could run at all (the Swift test asserts that failures is empty).

argv: WORK PASSCONDUIT BOT SAMPLES
"""

import asyncio
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request

import nio
from nio.crypto import decrypt_attachment

WORK, PASSCONDUIT, BOT, SAMPLES = sys.argv[1:5]
PY = sys.executable
TRUST = os.path.join(SAMPLES, "ca", "trust")
failures = []
figures = {}
SERVE_PORT = None  # the web wallet of the mailboxes: share links of "link ID" point at it
PKPASS = "application/vnd.apple.pkpass"


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what[:500], file=sys.stderr, flush=True)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env():
    return {"PATH": "/usr/bin:/bin", "HOME": WORK, "LANG": "C.UTF-8", "TZ": "UTC",
            "PASSCONDUIT_SYSTEM_CONFIG": os.path.join(WORK, "no-system-config.toml"),
            "XDG_CONFIG_HOME": os.path.join(WORK, "config"), "SWIFT_BACKTRACE": "enable=no"}


def passconduit(*args, stdin=None):
    return subprocess.run([PASSCONDUIT, *args], input=stdin, capture_output=True, env=env(), timeout=120)


# ------------------------------------------------------------------ Synapse

def start_synapse():
    port = free_port()
    hs = os.path.join(WORK, "hs")
    os.makedirs(hs)
    config = os.path.join(hs, "homeserver.yaml")
    subprocess.run([PY, "-m", "synapse.app.homeserver", "--server-name", "localhost", "--config-path", config,
                    "--data-directory", hs, "--generate-config", "--report-stats=no"],
                   check=True, capture_output=True, cwd=hs, timeout=120)
    import yaml  # Synapse's own dependency
    with open(config) as f:
        settings = yaml.safe_load(f)
    limits = {"per_second": 1000, "burst_count": 1000}
    settings.update({
        "listeners": [{"port": port, "bind_addresses": ["127.0.0.1"], "type": "http", "tls": False, "x_forwarded": False,
                       "resources": [{"names": ["client"], "compress": False}]}],
        "report_stats": False, "trusted_key_servers": [], "suppress_key_server_warning": True,
        "rc_message": limits, "rc_login": {"address": limits, "account": limits, "failed_attempts": limits},
        "rc_joins": {"local": limits, "remote": limits}, "rc_invites": {"per_room": limits, "per_user": limits, "per_issuer": limits},
        "rc_media_create": limits, "rc_key_requests": limits,
        "media_store_path": os.path.join(hs, "media"), "max_upload_size": "50M", "url_preview_enabled": False,
        "enable_metrics": False, "presence": {"enabled": False},
    })
    with open(config, "w") as f:
        yaml.safe_dump(settings, f)
    log = open(os.path.join(hs, "synapse.out"), "w")
    proc = subprocess.Popen([PY, "-m", "synapse.app.homeserver", "-c", config], cwd=hs, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    while time.monotonic() - started < 90:
        if proc.poll() is not None:
            raise RuntimeError("Synapse stopped: " + open(os.path.join(hs, "synapse.out")).read()[-2000:])
        try:
            urllib.request.urlopen(base + "/_matrix/client/versions", timeout=2)
            break
        except OSError:
            time.sleep(0.3)
    else:
        raise RuntimeError("Synapse did not answer within 90 s")
    figures["synapseStartSeconds"] = round(time.monotonic() - started, 1)
    for user in ("alice", "bob", "passbot"):
        subprocess.run(["register_new_matrix_user" if False else os.path.join(os.path.dirname(PY), "register_new_matrix_user"),
                        "-c", config, "-u", user, "-p", f"{user}-password", "--no-admin", base],
                       check=True, capture_output=True, timeout=60)
    return proc, base


# ------------------------------------------------------------------ the bot

def start_bot(base, limits="files-per-sender = 200\nfiles-per-room = 200\n"):
    libraries = os.path.join(WORK, "libraries")
    template = libraries + "/%{local}@%{domain}.sqlite"
    if not os.path.isdir(libraries):
        os.makedirs(libraries)
        made = passconduit("library", "create", "alice@localhost", "--library-map", template)
        check(made.returncode == 0, f"library create: {made.stderr.decode()}")
    with open(os.path.join(WORK, "bot-password"), "w") as f:
        f.write("passbot-password\n")
    config = os.path.join(WORK, "matrix.toml")
    with open(config, "w") as f:
        f.write(f"""homeserver = "{base}"
user = "@passbot:localhost"
password-file = "bot-password"
state = "bot-state"
allow = ["localhost"]
library-map = "{template}"
passconduit = "{PASSCONDUIT}"
trust = ["{TRUST}"]
time-zone = "UTC"
public-url = "http://127.0.0.1:{SERVE_PORT}"
notice-seconds = 2
""" + limits)
    log = open(os.path.join(WORK, "bot.err"), "a")
    signed_in = open(os.path.join(WORK, "bot.err")).read().count("signed in as")
    proc = subprocess.Popen([PY, BOT, "--config", config, "run"], stdout=log, stderr=log, env=env(), cwd=WORK)
    started = time.monotonic()
    while time.monotonic() - started < 60:
        if proc.poll() is not None:
            raise RuntimeError("the bot stopped: " + open(os.path.join(WORK, "bot.err")).read()[-3000:])
        if open(os.path.join(WORK, "bot.err")).read().count("signed in as") > signed_in:
            return proc, template
        time.sleep(0.2)
    raise RuntimeError("the bot did not sign in within 60 s: " + open(os.path.join(WORK, "bot.err")).read()[-3000:])


# ------------------------------------------------------------------ a person

class Person:
    def __init__(self, base, name):
        store = os.path.join(WORK, f"{name}-store")
        os.makedirs(store)
        self.client = nio.AsyncClient(base, f"@{name}:localhost", store_path=store,
                                      config=nio.AsyncClientConfig(encryption_enabled=True, store_sync_tokens=False))
        self.name = name
        self.replies = {}  # file event id -> [content]
        self.events = asyncio.Event()

    async def start(self):
        r = await self.client.login(f"{self.name}-password", device_name="test")
        assert isinstance(r, nio.LoginResponse), r
        if self.client.should_upload_keys:
            await self.client.keys_upload()
        self.client.add_event_callback(self.on_message, (nio.RoomMessage, nio.RoomEncryptedMedia))
        await self.client.sync(timeout=0, full_state=True)
        self.task = asyncio.create_task(self.client.sync_forever(timeout=1000, loop_sleep_time=50))

    async def on_message(self, room, event):
        if event.sender != "@passbot:localhost":
            return
        content = dict(event.source.get("content", {}))
        relates = content.get("m.relates_to") or {}
        if isinstance(event, nio.RoomEncryptedMedia):
            content["_decrypt"] = {"k": event.key["k"], "hash": event.hashes["sha256"], "iv": event.iv}
        content["_ts"] = event.server_timestamp
        self.replies.setdefault(relates.get("event_id"), []).append(content)
        self.events.set()

    async def room(self, invite, encrypted, name):
        initial = [nio.EnableEncryptionBuilder().as_dict()] if encrypted else []
        r = await self.client.room_create(name=name, invite=invite, initial_state=initial, is_direct=encrypted)
        assert isinstance(r, nio.RoomCreateResponse), r
        return r.room_id

    async def send_file(self, room_id, data, name, mimetype, encrypted):
        response, keys = await self.client.upload(lambda *_: data, content_type="application/octet-stream" if encrypted else (mimetype or "application/octet-stream"),
                                                  filename=name, encrypt=encrypted, filesize=len(data))
        assert isinstance(response, nio.UploadResponse), response
        info = {"size": len(data)}
        if mimetype:
            info["mimetype"] = mimetype
        content = {"msgtype": "m.file", "body": name, "filename": name, "info": info}
        if encrypted:
            keys["url"] = response.content_uri
            content["file"] = keys
        else:
            content["url"] = response.content_uri
        sent = await self.client.room_send(room_id, "m.room.message", content, ignore_unverified_devices=True)
        assert isinstance(sent, nio.RoomSendResponse), sent
        return sent.event_id

    async def say(self, room_id, text):
        sent = await self.client.room_send(room_id, "m.room.message", {"msgtype": "m.text", "body": text},
                                           ignore_unverified_devices=True)
        assert isinstance(sent, nio.RoomSendResponse), sent
        return sent.event_id

    async def wait(self, event_id, count=1, seconds=60, settle=0.0, lines=False):
        """The bot's replies to event_id once at least `count` arrived (only its text lines with `lines`),
        and then `settle` seconds more."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            got = self.replies.get(event_id, [])
            if len(notices(got) if lines else got) >= count:
                if settle:
                    await asyncio.sleep(settle)
                return self.replies.get(event_id, [])
            self.events.clear()
            try:
                await asyncio.wait_for(self.events.wait(), 0.5)
            except asyncio.TimeoutError:
                pass
        return self.replies.get(event_id, [])

    async def fetch(self, content):
        source = content.get("file") or {}
        mxc = source.get("url") or content.get("url")
        r = await self.client.download(mxc)
        assert isinstance(r, nio.MemoryDownloadResponse), r
        if "_decrypt" in content:
            d = content["_decrypt"]
            return decrypt_attachment(r.body, d["k"], d["hash"], d["iv"])
        return r.body

    async def wait_member(self, room_id, user, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            r = await self.client.joined_members(room_id)
            if isinstance(r, nio.JoinedMembersResponse) and any(m.user_id == user for m in r.members):
                return True
            await asyncio.sleep(0.2)
        return False


def decode(png):
    """zxing-cpp's reading of a PNG: [(format, bytes)]; Debian's module, so /usr/bin/python3."""
    code = ("import sys, zxingcpp; from PIL import Image; im = Image.open(sys.argv[1]);"
            "print('\\n'.join(r.format.name + '\\t' + bytes(r.bytes).hex() for r in zxingcpp.read_barcodes(im)))")
    path = os.path.join(WORK, "decode.png")
    with open(path, "wb") as f:
        f.write(png)
    r = subprocess.run(["/usr/bin/python3", "-c", code, path], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        failures.append("zxing-cpp: " + r.stderr[-300:])
        return []
    return [(line.split("\t")[0], bytes.fromhex(line.split("\t")[1])) for line in r.stdout.splitlines() if "\t" in line]


def expected(path):
    """What passconduit itself says of a sample: [(status, error message or None, description)]."""
    r = passconduit("scan", "--json", "--trust", TRUST, path)
    out = []
    for line in r.stdout.decode().splitlines():
        o = json.loads(line)
        out.append((o["status"], (o.get("error") or {}).get("message"), (o.get("pass") or {}).get("description")))
    return out


def notices(replies):
    return [c["body"] for c in replies if c.get("msgtype") == "m.notice"]


# ------------------------------------------------------------------ the conversation

async def converse(base, template):
    alice, bob = Person(base, "alice"), Person(base, "bob")
    await alice.start()
    await bob.start()
    bot = "@passbot:localhost"
    plain = await alice.room([bot], False, "plain")
    group = await alice.room([bot, "@bob:localhost"], False, "group")
    direct = await alice.room([bot], True, "direct")
    await bob.client.join(group)
    for room in (plain, group, direct):
        check(await alice.wait_member(room, bot), f"the bot did not join {room}")
    await asyncio.sleep(1.0)  # alice learns the bot's device keys for the encrypted room

    passes = os.path.join(SAMPLES, "passes")
    boarding = open(os.path.join(passes, "boarding-pass.pkpass"), "rb").read()

    # One pass under the four labels chat clients and bridges give it.
    labels = [("boarding-pass.pkpass", PKPASS), ("boarding-pass.pkpass", "application/octet-stream"),
              ("file.zip", "application/zip"), ("boarding-pass", None)]
    for name, mimetype in labels:
        event = await alice.send_file(plain, boarding, name, mimetype, False)
        got = await alice.wait(event, count=3 if (name, mimetype) != labels[0] else 2, settle=0.3)
        lines = notices(got)
        check(len(lines) == 1 and lines[0].startswith("Boarding pass") and "genuine" in lines[0] and "new to your wallet" in lines[0],
              f"{name} as {mimetype}: reply lines {lines}")
        check(all((c.get("m.relates_to") or {}).get("rel_type") == "m.thread" for c in got), f"{name} as {mimetype}: a reply outside the thread")
        images = [c for c in got if c.get("msgtype") == "m.image"]
        check(len(images) == 1 and images[0]["info"]["mimetype"] == "image/png", f"{name} as {mimetype}: card images {len(images)}")
        files = [c for c in got if c.get("msgtype") == "m.file"]
        if (name, mimetype) == labels[0]:
            check(not files, "a well-labelled pass was sent back again")
        else:
            check(len(files) == 1 and files[0]["info"]["mimetype"] == PKPASS and files[0]["body"].endswith(".pkpass")
                  and files[0]["body"] != name, f"{name} as {mimetype}: re-labelled file {[(c.get('body'), c.get('info')) for c in files]}")
            if files:
                check(await alice.fetch(files[0]) == boarding, f"{name} as {mimetype}: the re-labelled bytes differ")
        if images and (name, mimetype) == labels[0]:
            codes = decode(await alice.fetch(images[0]))
            check(len(codes) == 1, f"the two-member room's card: barcodes found {codes}")

    # Every sample pass, labels in turn: the reply says what passconduit says.
    samples = sorted(n for n in os.listdir(passes) if n.endswith((".pkpass", ".pkpasses")))
    sent = []
    for i, name in enumerate(samples):
        data = open(os.path.join(passes, name), "rb").read()
        label = labels[i % 4]
        filename = name if label[0].endswith(".pkpass") else ("file.zip" if label[1] == "application/zip" else name.rsplit(".", 1)[0])
        sent.append((name, filename, await alice.send_file(plain, data, filename, label[1], False)))
    checked_samples = 0
    for name, filename, event in sent:
        # What passconduit says of the bytes under the name they were sent with (a .pkpass name makes
        # a broken archive an invalid pass; as file.zip it is just not a pass).
        want = expected_bytes(open(os.path.join(passes, name), "rb").read(), filename)
        named_as_pass = filename.endswith((".pkpass", ".pkpasses"))
        got = await alice.wait(event, count=max(1, len(want)), seconds=60 if want or named_as_pass else 3, settle=0.5, lines=True)
        lines = notices(got)
        if not want:
            # Not a pass at all (not a zip, no pass.json): one sentence when it was named as a pass, else silence.
            check(len(lines) == 1 and lines[0].startswith("I found no Wallet pass") if named_as_pass else lines == [],
                  f"{name} as {filename}: {lines}")
            continue
        checked_samples += 1
        check(len(lines) == len(want), f"{name}: {len(lines)} reply lines for {len(want)} passes: {lines}")
        for (status, message, _), line in zip(want, lines):
            if status == "invalid":
                check("NOT a valid pass: " in line and (message or "")[:60] in line, f"{name}: {line!r} lacks {message!r}")
            elif status == "valid":
                check("genuine" in line, f"{name}: {line!r}")
    figures["samplesChecked"] = checked_samples

    # A bundle, a zip holding a pass, and a saved message.
    import zipfile, io
    bundle = open(os.path.join(passes, "bundle.pkpasses"), "rb").read()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("tickets/boarding-pass.pkpass", boarding)
    message = open(os.path.join(SAMPLES, "messages", "two-passes.eml"), "rb").read()
    for name, data, mimetype in [("bundle.pkpasses", bundle, None), ("tickets.zip", buf.getvalue(), "application/zip"),
                                 ("message.eml", message, "message/rfc822")]:
        want = expected_bytes(data, name)
        event = await alice.send_file(plain, data, name, mimetype, False)
        got = await alice.wait(event, count=max(1, len(want)), settle=1.0, lines=True)
        # Several passes, or passes inside another file: a line and a card each, never a re-labelled file.
        check(len(want) >= 1 and len(notices(got)) == len(want), f"{name}: replies {notices(got)} for {len(want)} passes")
        check(not any(c.get("msgtype") == "m.file" for c in got), f"{name}: a file was sent back")

    # The group room: the card without its barcode.
    event = await alice.send_file(group, boarding, "boarding-pass.pkpass", PKPASS, False)
    got = await alice.wait(event, count=2, settle=0.3)
    images = [c for c in got if c.get("msgtype") == "m.image"]
    check(len(images) == 1, f"group room: {len(images)} card images")
    if images:
        codes = decode(await alice.fetch(images[0]))
        check(codes == [], f"group room: the card shows a barcode {codes}")
    said = await alice.say(group, "!pass show 1234")
    got = await alice.wait(said)
    check(any("direct message only" in b for b in notices(got)), f"show in the group room: {notices(got)}")

    # The encrypted direct message: the barcode decodes to the pass's exact message; add; list; show.
    barcode_message = json.loads(subprocess.run(["unzip", "-p", os.path.join(passes, "boarding-pass.pkpass"), "pass.json"],
                                                capture_output=True).stdout)["barcodes"][0]["message"].encode("iso-8859-1")
    event = await alice.send_file(direct, boarding, "file.zip", "application/zip", True)
    got = await alice.wait(event, count=3, settle=0.5)
    check(len(notices(got)) == 1 and "genuine" in notices(got)[0], f"encrypted DM: {notices(got)}")
    images = [c for c in got if c.get("msgtype") == "m.image"]
    check(len(images) == 1 and "file" in images[0] and "url" not in images[0], f"encrypted DM: card images {images}")
    if images:
        codes = decode(await alice.fetch(images[0]))
        check(len(codes) == 1 and codes[0][1] == barcode_message, f"encrypted DM: barcode {codes} != {barcode_message!r}")
    files = [c for c in got if c.get("msgtype") == "m.file"]
    check(len(files) == 1 and "file" in files[0], f"encrypted DM: re-labelled file {files}")
    if files:
        check(await alice.fetch(files[0]) == boarding, "encrypted DM: the re-labelled bytes differ")
    said = await alice.say(direct, "add")
    got = await alice.wait(said)
    check(any(b.startswith("Added to your wallet") for b in notices(got)), f"add: {notices(got)}")
    listed = passconduit("list", "--json", "--library", template.replace("%{local}", "alice").replace("%{domain}", "localhost"))
    rows = [json.loads(l) for l in listed.stdout.decode().splitlines()]
    check(len(rows) == 1 and rows[0]["kind"] == "boardingPass", f"alice's library after add: {rows}")
    # add staged it as an offer with where it was sent, and the accepted pass keeps that.
    source = (rows[0].get("source") or {}) if rows else {}
    check(source.get("network") == "matrix" and source.get("sender") == "@alice:localhost" and source.get("room") == direct
          and (source.get("eventId") or "").startswith("$"), f"add: the pass's chat provenance {source}")
    # The web wallet of alice@localhost shows what add filed.
    port = SERVE_PORT
    serve = subprocess.Popen([PASSCONDUIT, "serve", "--listen", f"127.0.0.1:{port}", "--auth", "header:X-Forwarded-User",
                              "--trusted-proxy", "127.0.0.1", "--library-map", template, "--trust", TRUST],
                             env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        page = ""
        for _ in range(100):
            try:
                request = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={"X-Forwarded-User": "alice@localhost"})
                page = urllib.request.urlopen(request, timeout=5).read().decode()
                break
            except OSError:
                await asyncio.sleep(0.1)
        description = expected(os.path.join(passes, "boarding-pass.pkpass"))[0][2]
        check(description and description in page, f"alice's web wallet does not list {description!r}")
        # link: a share link that serves the pass's bytes as Wallet's type, until revoked.
        library = template.replace("%{local}", "alice").replace("%{domain}", "localhost")
        sha = json.loads(passconduit("list", "--json", "--library", library).stdout.decode().splitlines()[0])["sha256"]
        said = await alice.say(direct, f"link {sha[:8]}")
        got = await alice.wait(said)
        urls = [w for b in notices(got) for w in b.split() if w.startswith(f"http://127.0.0.1:{port}/s/")]
        check(len(urls) == 1, f"link: {notices(got)}")
        if urls:
            answer = urllib.request.urlopen(urls[0], timeout=10)
            check(answer.headers.get("Content-Type", "").startswith(PKPASS) and answer.read() == boarding,
                  f"the share link served {answer.headers.get('Content-Type')}")
            revoked = passconduit("share", "--revoke", "1", "--library", library)
            check(revoked.returncode == 0, f"share --revoke: {revoked.stderr.decode()}")
            try:
                urllib.request.urlopen(urls[0], timeout=10)
                check(False, "a revoked share link still serves the pass")
            except urllib.error.HTTPError as e:
                check(e.code == 404, f"a revoked share link answers {e.code}")
    finally:
        serve.terminate()
        serve.wait(10)
    said = await alice.say(direct, "list")
    got = await alice.wait(said)
    check(rows and any(rows[0]["sha256"][:8] in b for b in notices(got)), f"list: {notices(got)}")
    if rows:
        said = await alice.say(direct, f"show {rows[0]['sha256'][:8]}")
        got = await alice.wait(said)
        images = [c for c in got if c.get("msgtype") == "m.image"]
        check(len(images) == 1, f"show: {got}")
        if images:
            codes = decode(await alice.fetch(images[0]))
            check(len(codes) == 1 and codes[0][1] == barcode_message, f"show: barcode {codes}")
    said = await alice.say(direct, "help")
    got = await alice.wait(said)
    check(any("add" in b and "list" in b for b in notices(got)), f"help: {notices(got)}")
    # bob has no library on this server.
    said = await bob.say(group, "!pass list")
    got = await bob.wait(said)
    check(any("has no wallet here" in b for b in notices(got)), f"bob's list: {notices(got)}")

    # Latency: file event to the first reply, 20 times, in the two-member plain room.
    latencies = []
    for _ in range(20):
        event = await alice.send_file(plain, boarding, "boarding-pass.pkpass", PKPASS, False)
        t0 = time.monotonic()
        got = await alice.wait(event, count=1)
        if got:
            latencies.append((time.monotonic() - t0) * 1000)
    check(len(latencies) == 20, f"latency runs answered: {len(latencies)}")
    if latencies:
        figures["replyLatencyMedianMs"] = round(statistics.median(latencies))
        figures["replyLatencyMaxMs"] = round(max(latencies))

    return alice, bob, plain, group


async def limits(alice, bob, plain, group):
    """Phase 2, the bot restarted with small limits: a flood gets one sentence, an oversized pass one
    sentence, a malformed event nothing (and the bot goes on)."""
    passes = os.path.join(SAMPLES, "passes")
    coupon = open(os.path.join(passes, "coupon.pkpass"), "rb").read()
    events = [await bob.send_file(group, coupon, "coupon.pkpass", PKPASS, False) for _ in range(5)]
    answered = []
    for event in events:
        got = await bob.wait(event, count=1, seconds=20 if not answered or len(answered) < 3 else 4, settle=0.3)
        answered.append(notices(got))
    check([len(a) for a in answered] == [1, 1, 1, 1, 0] and "Too many files" in (answered[3] or [""])[0],
          f"flood of 5 with 3 per sender: {answered}")
    big = coupon + b"\0" * 150_000
    event = await alice.send_file(plain, big, "big.pkpass", PKPASS, False)
    got = await alice.wait(event, settle=0.3)
    check(len(notices(got)) == 1 and "more than the 97 KB" in notices(got)[0], f"oversized: {notices(got)}")
    # Malformed: an m.file without url, with a non-object info; then a good file still gets its answer.
    await alice.client.room_send(plain, "m.room.message", {"msgtype": "m.file", "body": "x.pkpass", "info": "nonsense"})
    await alice.client.room_send(plain, "m.room.message", {"msgtype": "m.file", "body": 7, "url": "mxc://localhost/nothing-here"})
    event = await alice.send_file(plain, coupon, "coupon.pkpass", PKPASS, False)
    got = await alice.wait(event, settle=0.3)
    check(len(notices(got)) == 1 and "genuine" in notices(got)[0], f"after malformed events: {notices(got)}")
    for person in (alice, bob):
        person.task.cancel()
        await person.client.close()


def expected_bytes(data, name):
    folder = os.path.join(WORK, "expected")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return expected(path)


async def chat_notices(alice, template):
    """Issue 43: a gate change in alice's library reaches her in a direct room with the bot, once, with
    its pass's page; the library records the chat claim."""
    forge = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "update-peer", "forge.py")
    library = template.replace("%{local}", "alice").replace("%{domain}", "localhost")
    before = len(alice.replies.get(None, []))
    now = time.time()
    digest = None
    for gate, age in (("A26", 7200), ("B22", 3600)):
        out = os.path.join(WORK, f"chat-{gate}.pkpass")
        edits = {"serialNumber": "CHAT-1", "passTypeIdentifier": "pass.org.passconduit.boarding", "expirationDate": None,
                 "relevantDates": None, "webServiceURL": None, "authenticationToken": "token-0123456789abcdef",
                 "fields": {"gate": gate}}
        signed = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now - age))
        made = subprocess.run(["/usr/bin/python3", forge, os.path.join(SAMPLES, "passes", "boarding-pass.pkpass"), out,
                               os.path.join(SAMPLES, "ca"), "boarding", json.dumps(edits), signed], capture_output=True, timeout=60)
        check(made.returncode == 0, f"forge: {made.stderr.decode()[-500:]}")
        added = passconduit("add", "--library", library, "--trust", TRUST, "--yes", out)
        check(added.returncode == 0, f"add gate {gate}: {added.stderr.decode()[-500:]}")
        digest = hashlib.sha256(open(out, "rb").read()).hexdigest()
    got = await alice.wait(None, count=before + 1, seconds=30, settle=5.0)
    said = [c.get("body", "") for c in got[before:]]
    check(len(said) == 1, f"chat notices: alice got {said}")
    if said:
        check(said[0].startswith("Gate changed to B22.\n"), f"chat notice text: {said[0]!r}")
        check(f"http://127.0.0.1:{SERVE_PORT}/passes/{digest}" in said[0], f"chat notice link: {said[0]!r}")
        check("token-0123456789abcdef" not in said[0], "the chat notice holds the pass's token")
    listed = passconduit("notices", "--json", "--library", library)
    rows = [json.loads(l) for l in listed.stdout.decode().splitlines()]
    check([r.get("sent") for r in rows] == [["chat"]], f"the library's notices after the chat: {rows}")


def main():
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(os.path.join(WORK, "config", "passconduit"), exist_ok=True)
    with open(os.path.join(WORK, "config", "passconduit", "config.toml"), "w") as f:
        f.write("[notices]\nenabled = true\n")
    synapse, bot = None, None
    started = time.monotonic()
    global SERVE_PORT
    SERVE_PORT = free_port()
    try:
        synapse, base = start_synapse()
        bot, template = start_bot(base)

        async def both():
            people = await converse(base, template)
            await chat_notices(people[0], template)
            nonlocal bot
            bot.terminate()
            bot.wait(15)
            bot, _ = start_bot(base, "files-per-sender = 3\nfiles-per-room = 200\nmax-bytes = 100000\n")
            await asyncio.sleep(1)
            await limits(*people)
        asyncio.run(both())
    except Exception as e:
        failures.append(f"{type(e).__name__}: {e}")
    finally:
        for proc in (bot, synapse):
            if proc and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
        if bot is not None:
            text = open(os.path.join(WORK, "bot.err")).read()
            check(bot.returncode in (0, -15), f"the bot ended with {bot.returncode}: {text[-2000:]}")
            check("Traceback" not in text, "the bot logged a traceback: " + text[-3000:])
            check("passbot-password" not in text and "syt_" not in text, "the bot's log holds a secret")
    figures["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps({"failures": failures, "figures": figures}))


main()
