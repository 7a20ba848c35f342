"""Makes N boarding passes (serial BENCH-0000…) signed by the sample CA, webServiceURL on the
loopback benchmark server; one openssl cms per pass. Usage: make-passes.py OUT_DIR PORT N"""
import hashlib, json, os, subprocess, sys, tempfile, zipfile

out, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ca = os.path.join(root, "Samples", "ca")
with zipfile.ZipFile(os.path.join(root, "Samples", "passes", "boarding-pass.pkpass")) as z:
    base = {name: z.read(name) for name in z.namelist() if name not in ("manifest.json", "signature")}
os.makedirs(out, exist_ok=True)
for i in range(n):
    serial = "BENCH-%04d" % i
    target = os.path.join(out, serial + ".pkpass")
    if os.path.exists(target):
        continue
    files = dict(base)
    pj = json.loads(files["pass.json"])
    pj.update({"serialNumber": serial, "webServiceURL": "http://127.0.0.1:%d/passes/" % port,
               "authenticationToken": "bench-token-0123456789", "expirationDate": None})
    pj.pop("expirationDate")
    pj.pop("relevantDates", None)
    files["pass.json"] = json.dumps(pj, indent=2).encode()
    manifest = (json.dumps({k: hashlib.sha1(v).hexdigest() for k, v in sorted(files.items())}, indent=2) + "\n").encode()
    with tempfile.TemporaryDirectory() as work:
        m, s = os.path.join(work, "manifest.json"), os.path.join(work, "signature")
        open(m, "wb").write(manifest)
        subprocess.run(["openssl", "cms", "-sign", "-binary", "-in", m, "-outform", "DER", "-out", s,
                        "-signer", os.path.join(ca, "boarding.pem"), "-inkey", os.path.join(ca, "boarding.key"),
                        "-certfile", os.path.join(ca, "wwdr.pem")], check=True)
        sig = open(s, "rb").read()
    with zipfile.ZipFile(target + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in files.items():
            z.writestr(k, v)
        z.writestr("manifest.json", manifest)
        z.writestr("signature", sig)
    os.rename(target + ".tmp", target)
