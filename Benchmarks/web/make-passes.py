#!/usr/bin/env python3
"""N distinct, validly signed event tickets for the web benchmark's library: copies of
Samples/passes/event-ticket.pkpass with their own serial number, seat, barcode message, relevant
date (spread over the next year) and expiration date, manifest rebuilt and signed by the sample
test CA (Samples/ca) as Samples/make-passes.sh does. Usage: make-passes.py COUNT OUTDIR"""
import hashlib, json, os, subprocess, sys, tempfile, zipfile
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
count, outdir = int(sys.argv[1]), sys.argv[2]
ca = os.path.join(root, "Samples", "ca")
with zipfile.ZipFile(os.path.join(root, "Samples", "passes", "event-ticket.pkpass")) as z:
    base = {n: z.read(n) for n in z.namelist() if n not in ("manifest.json", "signature")}
now = datetime.now(timezone.utc)

def make(i):
    files = dict(base)
    pj = json.loads(files["pass.json"])
    serial = "BENCH-%05d" % i
    pj["serialNumber"] = serial
    pj["description"] = "Benchmark ticket %d" % i
    when = now + timedelta(days=1 + i % 365, hours=i % 24)
    pj["relevantDate"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    pj["expirationDate"] = (when + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    pj["barcodes"] = [{"format": "PKBarcodeFormatQR", "message": serial + "|SEAT-%d" % (i % 300),
                       "messageEncoding": "iso-8859-1", "altText": serial}]
    files["pass.json"] = json.dumps(pj, indent=2).encode()
    manifest = (json.dumps({n: hashlib.sha1(b).hexdigest() for n, b in sorted(files.items())}, indent=2) + "\n").encode()
    with tempfile.TemporaryDirectory() as work:
        m, s = os.path.join(work, "manifest.json"), os.path.join(work, "signature")
        open(m, "wb").write(manifest)
        subprocess.run(["openssl", "cms", "-sign", "-binary", "-in", m, "-outform", "DER", "-out", s,
                        "-signer", os.path.join(ca, "event.pem"), "-inkey", os.path.join(ca, "event.key"),
                        "-certfile", os.path.join(ca, "wwdr.pem")], check=True)
        signature = open(s, "rb").read()
    with zipfile.ZipFile(os.path.join(outdir, serial + ".pkpass"), "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in files.items():
            z.writestr(n, b)
        z.writestr("manifest.json", manifest)
        z.writestr("signature", signature)

os.makedirs(outdir, exist_ok=True)
with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
    list(pool.map(make, range(count)))
