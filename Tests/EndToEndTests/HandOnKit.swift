import Foundation
import XCTest

/// Helpers for the hand-on tests (calendar, bundles, scrubbing, send): signed passes made from a
/// sample with pass.json edited, and the real peers that judge the output (python3-icalendar,
/// khal, python's zipfile, curl, zxing-cpp), each started here and failing with the Debian
/// package's name when it is missing.
enum HandOn {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let root = Run.root

    /// Runs a program with files for its outputs (no pipe can fill up).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    cwd: URL? = nil) throws -> Result {
        let r = try FilterRun.run(executable: URL(fileURLWithPath: executable), arguments: arguments, input: [],
                                  environment: environment ?? ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"],
                                  cwd: cwd)
        return Result(status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self),
                      stderr: String(decoding: r.stderr, as: UTF8.self))
    }

    /// Thrown after XCTFail when a peer is missing: it ends the test as an error, never as a skip.
    struct MissingPeer: Error { let package: String }

    /// Fails the test naming the Debian package when a peer is not installed.
    static func require(_ path: String, package: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("\(path) is missing: apt-get install \(package)", file: file, line: line)
            throw MissingPeer(package: package)  // already failed above; stops the test as a failure
        }
    }

    /// Signs one pass per edit set: outputs are OUT (one) or OUT-1.pkpass, OUT-2.pkpass, … (a list).
    static let forgeScript = #"""
    import hashlib, json, os, subprocess, sys, tempfile, zipfile
    src, out, ca, edit_sets, removals, signer = sys.argv[1:7]
    edit_sets, removals = json.loads(edit_sets), json.loads(removals)
    many = isinstance(edit_sets, list)
    for i, edits in enumerate(edit_sets if many else [edit_sets], 1):
        forge(src, out[:-len(".pkpass")] + "-%d.pkpass" % i if many else out, ca, edits, removals, signer)
    """#

    static let forgeFunction = #"""
    import base64, hashlib, json, os, subprocess, sys, tempfile, zipfile
    def forge(src, out, ca, edits, removals, signer):
      with zipfile.ZipFile(src) as z:
          files = {n: z.read(n) for n in z.namelist() if n not in ("manifest.json", "signature")}
      pj = json.loads(files["pass.json"])
      edits = dict(edits)
      for n, b in edits.pop("__files__", {}).items():
          files[n] = base64.b64decode(b)
      for k in removals:
          pj.pop(k, None)
      pj.update(edits)
      files["pass.json"] = json.dumps(pj, indent=2, ensure_ascii=False).encode()
      manifest = (json.dumps({n: hashlib.sha1(b).hexdigest() for n, b in sorted(files.items())}, indent=2) + "\n").encode()
      with tempfile.TemporaryDirectory() as work:
          m, s = os.path.join(work, "manifest.json"), os.path.join(work, "signature")
          open(m, "wb").write(manifest)
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

    /// A copy of Samples/passes/`base` with pass.json keys removed and set (the key `__files__`,
    /// a dictionary of name to base64 bytes, adds or replaces files of the pass), signed now by the
    /// sample CA's `signer` (whose certificate names the base pass's type), written to `path`.
    static func forge(_ base: String = "event-ticket.pkpass", signer: String = "event", set edits: [String: Any],
                      remove: [String] = [], to path: URL) throws {
        func json(_ v: Any) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: v), as: UTF8.self) }
        let r = try run("/usr/bin/python3", ["-c", forgeFunction + "\n" + forgeScript, Run.sample("passes/" + base), path.path,
                                             Run.sample("ca"), try json(edits), try json(remove), signer])
        guard r.status == 0 else {
            throw NSError(domain: "HandOn.forge", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.stderr])
        }
    }

    /// Many signed passes in one python run: `directory`/forged-1.pkpass … in the order of `edits`.
    static func forgeMany(_ base: String = "event-ticket.pkpass", signer: String = "event", edits: [[String: Any]],
                          in directory: URL) throws -> [URL] {
        let out = directory.appendingPathComponent("forged.pkpass")
        let json = String(decoding: try JSONSerialization.data(withJSONObject: edits), as: UTF8.self)
        let r = try run("/usr/bin/python3", ["-c", forgeFunction + "\n" + forgeScript, Run.sample("passes/" + base), out.path,
                                             Run.sample("ca"), json, "[]", signer])
        guard r.status == 0 else {
            throw NSError(domain: "HandOn.forge", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.stderr])
        }
        return (1...edits.count).map { directory.appendingPathComponent("forged-\($0).pkpass") }
    }

    /// The real passes: the copies of the project corpus in the WalletPass fixtures (every file).
    static var realPasses: [URL] {
        let dir = root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".pkpass") }.sorted().map { dir.appendingPathComponent($0) }
    }

    /// One file per pass identity (the first of each type/serial): `add` of two different
    /// versions of one pass in a single run is not what these tests are about.
    static func onePerPass(_ files: [URL]) throws -> [URL] {
        let script = """
        import json, re, sys, zipfile
        seen = set()
        for path in json.loads(sys.argv[1]):
            try:
                raw = zipfile.ZipFile(path).read("pass.json").decode("utf-8-sig")
                p = json.loads(re.sub(r",(\\s*[\\]}])", r"\\1", raw))
                key = (p["passTypeIdentifier"], p["serialNumber"])
            except Exception:
                continue
            if key not in seen:
                seen.add(key)
                print(path)
        """
        let list = String(decoding: try JSONSerialization.data(withJSONObject: files.map(\.path)), as: UTF8.self)
        let r = try run("/usr/bin/python3", ["-c", script, list])
        return r.stdout.split(separator: "\n").map { URL(fileURLWithPath: String($0)) }
    }

    /// Runs Tests/Shared/check-ics.py (python3-icalendar) on .ics files against the passes they
    /// came from; fails the test with its reasons; returns one dictionary per event.
    @discardableResult
    static func checkICS(_ files: [URL], passes: [URL], file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try require("/usr/bin/python3", package: "python3", file: file, line: line)
        let probe = try run("/usr/bin/python3", ["-c", "import icalendar"])
        if probe.status != 0 {
            XCTFail("python3-icalendar is missing: apt-get install python3-icalendar", file: file, line: line)
            return []
        }
        let passList = String(decoding: try JSONSerialization.data(withJSONObject: passes.map(\.path)), as: UTF8.self)
        let r = try run("/usr/bin/python3", [root.appendingPathComponent("Tests/Shared/check-ics.py").path, passList] + files.map(\.path))
        XCTAssertEqual(r.status, 0, "icalendar: " + r.stderr, file: file, line: line)
        return r.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// Imports .ics files into a new khal calendar in `dir` (`khal import --batch`) and returns
    /// every event khal then holds, one line each: "start|end|title|uid", in UTC.
    static func khal(_ files: [URL], in dir: URL, format: String = "{start}|{end}|{title}|{uid}",
                     file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try require("/usr/bin/khal", package: "khal", file: file, line: line)
        let calendar = dir.appendingPathComponent("khal-calendar")
        try FileManager.default.createDirectory(at: calendar, withIntermediateDirectories: true)
        let config = dir.appendingPathComponent("khal.conf")
        try """
        [calendars]
        [[passes]]
        path = \(calendar.path)
        type = calendar
        [locale]
        timeformat = %H:%M
        dateformat = %Y-%m-%d
        longdateformat = %Y-%m-%d
        datetimeformat = %Y-%m-%d %H:%M
        longdatetimeformat = %Y-%m-%d %H:%M
        default_timezone = UTC
        local_timezone = UTC
        [sqlite]
        path = \(dir.appendingPathComponent("khal.db").path)

        """.write(to: config, atomically: true, encoding: .utf8)
        let env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC", "HOME": dir.path, "COLUMNS": "100000",
                   "XDG_DATA_HOME": dir.appendingPathComponent("xdg-data").path,
                   "XDG_CACHE_HOME": dir.appendingPathComponent("xdg-cache").path]
        let imported = try run("/usr/bin/khal", ["-c", config.path, "import", "--batch", "-a", "passes"] + files.map(\.path),
                               environment: env)
        XCTAssertEqual(imported.status, 0, "khal import: " + imported.stderr + imported.stdout, file: file, line: line)
        // `search ""` lists every event at once; `list` over centuries walks day by day (minutes).
        let listed = try run("/usr/bin/khal", ["-c", config.path, "search", "--format", format, ""],
                             environment: env)
        XCTAssertEqual(listed.status, 0, "khal list: " + listed.stderr, file: file, line: line)
        return listed.stdout.split(separator: "\n").map(String.init).filter { $0.contains("|") }
    }
}
