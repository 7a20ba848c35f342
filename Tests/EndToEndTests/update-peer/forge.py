"""Makes a signed test pass for passconduit's `update` tests.

forge.py SRC OUT CA_DIR SIGNER EDITS_JSON [SIGNING_TIME]
Takes Samples/passes SRC, applies EDITS_JSON to pass.json (top-level keys; "fields" replaces the
value of fields by key in any field list), rebuilds the manifest, and signs it with CA_DIR/SIGNER
(+ the wwdr intermediate), the way Samples/make-passes.sh does. SIGNING_TIME ("2026-11-25
10:00:00", UTC) freezes the clock with faketime, since openssl cms stamps the current time.
"""
import hashlib, json, os, subprocess, sys, tempfile, zipfile

src, out, ca, signer, edits = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
when = sys.argv[6] if len(sys.argv) > 6 else None
with zipfile.ZipFile(src) as z:
    files = {n: z.read(n) for n in z.namelist() if n not in ("manifest.json", "signature")}
pj = json.loads(files["pass.json"])
field_values = edits.pop("fields", {})
for k, v in edits.items():
    if v is None:
        pj.pop(k, None)
    else:
        pj[k] = v
for style in ("boardingPass", "eventTicket", "coupon", "storeCard", "generic"):
    for group in pj.get(style, {}).values():
        if isinstance(group, list):
            for f in group:
                if isinstance(f, dict) and f.get("key") in field_values:
                    f["value"] = field_values[f["key"]]
files["pass.json"] = json.dumps(pj, indent=2, ensure_ascii=False).encode()
manifest = (json.dumps({n: hashlib.sha1(b).hexdigest() for n, b in sorted(files.items())}, indent=2) + "\n").encode()
with tempfile.TemporaryDirectory() as work:
    m, s = os.path.join(work, "manifest.json"), os.path.join(work, "signature")
    open(m, "wb").write(manifest)
    cmd = ["openssl", "cms", "-sign", "-binary", "-in", m, "-outform", "DER", "-out", s,
           "-signer", os.path.join(ca, signer + ".pem"), "-inkey", os.path.join(ca, signer + ".key"),
           "-certfile", os.path.join(ca, "wwdr.pem")]
    if when:
        cmd = ["faketime", "-f", "@" + when] + cmd
    subprocess.run(cmd, check=True, env=dict(os.environ, TZ="UTC"))
    sig = open(s, "rb").read()
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for n, b in files.items():
        z.writestr(n, b)
    z.writestr("manifest.json", manifest)
    z.writestr("signature", sig)
