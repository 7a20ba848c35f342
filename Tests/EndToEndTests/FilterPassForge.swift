import Foundation
import XCTest

/// Makes passes for filter tests from a sample pass: edits pass.json, rebuilds the manifest and
/// signs it with the sample test CA (Samples/ca), the way Samples/make-passes.sh does — so the
/// result verifies as `valid` under `--trust Samples/ca/trust`. Used for hostile organization
/// names and for many distinct passes.
enum FilterPassForge {
    static let script = #"""
    import hashlib, json, os, subprocess, sys, tempfile, zipfile
    src, out, ca, edits = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    with zipfile.ZipFile(src) as z:
        files = {n: z.read(n) for n in z.namelist() if n not in ("manifest.json", "signature")}
    pj = json.loads(files["pass.json"])
    pj.update(edits)
    files["pass.json"] = json.dumps(pj, indent=2, ensure_ascii=False).encode()
    manifest = (json.dumps({n: hashlib.sha1(b).hexdigest() for n, b in sorted(files.items())}, indent=2) + "\n").encode()
    with tempfile.TemporaryDirectory() as work:
        m, s = os.path.join(work, "manifest.json"), os.path.join(work, "signature")
        open(m, "wb").write(manifest)
        signer = os.environ.get("SIGNER", "event")
        subprocess.run(["openssl", "cms", "-sign", "-binary", "-in", m, "-outform", "DER", "-out", s,
                        "-signer", os.path.join(ca, signer + ".pem"), "-inkey", os.path.join(ca, signer + ".key"),
                        "-certfile", os.path.join(ca, "wwdr.pem")], check=True)
        sig = open(s, "rb").read()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in files.items():
            z.writestr(n, b)
        z.writestr("manifest.json", manifest)
        z.writestr("signature", sig)
    """#

    /// A copy of Samples/passes/`base` with `edits` applied to pass.json, signed now by the test CA.
    static func pass(from base: String = "event-ticket.pkpass", edits: [String: Any]) throws -> [UInt8] {
        let dir = FilterRun.directory("forge")
        let out = dir.appendingPathComponent("forged.pkpass")
        let json = String(decoding: try JSONSerialization.data(withJSONObject: edits), as: UTF8.self)
        let root = FilterMail.repositoryRoot
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/python3"),
                                  arguments: ["-c", script, root.appendingPathComponent("Samples/passes/\(base)").path, out.path,
                                              root.appendingPathComponent("Samples/ca").path, json],
                                  input: [], environment: ["PATH": "/usr/bin:/bin"])
        guard r.status == 0 else {
            throw NSError(domain: "FilterPassForge", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: String(decoding: r.stderr, as: UTF8.self)])
        }
        return try [UInt8](Data(contentsOf: out))
    }
}
