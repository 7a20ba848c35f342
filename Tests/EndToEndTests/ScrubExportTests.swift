import Foundation
import XCTest

/// `export ID --scrub`: the copy for a bug report, read back by Python's zipfile (a reader that is
/// not ours) and by `passconduit scan`.
final class ScrubExportTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    static let inspect = #"""
    import hashlib, json, sys, zipfile
    z = zipfile.ZipFile(sys.argv[1])
    names = z.namelist()
    manifest = json.loads(z.read("manifest.json"))
    ok = all(manifest.get(n) == hashlib.sha1(z.read(n)).hexdigest() for n in names if n != "manifest.json")
    content = b"".join(z.read(n) for n in names)
    print(json.dumps({"names": sorted(names), "manifestMatches": ok and len(manifest) == len(names) - 1,
                      "comment": z.comment.decode(), "pass": json.loads(z.read("pass.json")),
                      "found": [v for v in json.loads(sys.argv[2]) if v.encode() in content or v.encode() in open(sys.argv[1], "rb").read()]}))
    """#

    func testScrubbedCopyKeepsTheShapeAndLosesThePersonalValues() throws {
        let sandbox = try Sandbox()
        let original = sandbox.dir.appendingPathComponent("personal.pkpass")
        let secrets = ["Ada Lovelace", "SEAT-77-Q", "PNR4711XYZ", "ada@example.org", "tok-9f8e7d6c5b4a39281706", "SERIAL-0042-ADA"]
        try HandOn.forge(set: [
            "serialNumber": "SERIAL-0042-ADA", "authenticationToken": "tok-9f8e7d6c5b4a39281706",
            "groupingIdentifier": "PNR4711XYZ", "userInfo": ["email": "ada@example.org"],
            "semantics": ["attendeeName": "Ada Lovelace", "eventName": "Night of Tests"],
            "eventTicket": ["primaryFields": [["key": "name", "label": "Name", "value": "Ada Lovelace"]],
                            "secondaryFields": [["key": "seat", "label": "Seat", "value": "SEAT-77-Q"]]],
            "barcodes": [["format": "PKBarcodeFormatQR", "message": "SEAT-77-Q|Ada Lovelace", "messageEncoding": "iso-8859-1"]],
        ], to: original)
        XCTAssertEqual(try sandbox.run("add", ["--yes", original.path]).status, 0)
        let scrubbed = sandbox.dir.appendingPathComponent("for-report.pkpass")
        let r = try sandbox.run("export", ["pass.org.passconduit.event/SERIAL-0042-ADA", "--scrub", "-o", scrubbed.path])
        XCTAssertEqual(r.status, 0, r.stderr)

        let secretsJSON = String(decoding: try JSONSerialization.data(withJSONObject: secrets), as: UTF8.self)
        let out = try HandOn.run("/usr/bin/python3", ["-c", Self.inspect, scrubbed.path, secretsJSON])
        XCTAssertEqual(out.status, 0, out.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["found"] as? [String], [], "personal values survived")
        XCTAssertEqual(report["manifestMatches"] as? Bool, true)
        XCTAssertTrue((report["comment"] as? String)?.contains("signature was removed") ?? false)
        let names = try XCTUnwrap(report["names"] as? [String])
        XCTAssertFalse(names.contains("signature"))
        let originalNames = try HandOn.run("/usr/bin/python3", ["-c", "import zipfile,sys; print('\\n'.join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))", original.path])
        XCTAssertEqual(names, originalNames.stdout.split(separator: "\n").map(String.init).filter { $0 != "signature" })
        let pass = try XCTUnwrap(report["pass"] as? [String: Any])
        XCTAssertEqual((pass["serialNumber"] as? String)?.count, "SERIAL-0042-ADA".count)
        XCTAssertEqual(pass["organizationName"] as? String, "Passconduit Arena", "the issuer stays")
        let barcode = try XCTUnwrap((pass["barcodes"] as? [[String: Any]])?.first?["message"] as? String)
        XCTAssertEqual(barcode.count, "SEAT-77-Q|Ada Lovelace".count)
        XCTAssertEqual(barcode.filter { $0 == "|" || $0 == "-" || $0 == " " }.count, 4, "punctuation keeps the layout")

        // Opening it says plainly that it is not signed.
        let scan = try sandbox.run("scan", ["--json", scrubbed.path])
        XCTAssertEqual((scan.objects.first?["error"] as? [String: Any])?["code"] as? String, "missing-signature", scan.stdout)
        let add = try sandbox.run("add", ["--yes", scrubbed.path])
        XCTAssertEqual(add.status, 65, "a scrubbed copy is never added")
    }

    /// The real pass `pkpassvalidator__good` (Tests/WalletPassTests/Fixtures/pkpass-real, origin in
    /// its MANIFEST.md) greets its holder by name in three locations' relevant texts and names
    /// them in its description: none of it, nor the coordinates, survives the copy.
    func testRealPassLosesTheNameInItsLocationsAndItsCoordinates() throws {
        let sandbox = try Sandbox()
        let original = Run.root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real/pkpassvalidator__good.pkpass").path
        let add = try sandbox.run("add", ["--yes", original])
        XCTAssertEqual(add.status, 0, add.stderr)
        let scrubbed = sandbox.dir.appendingPathComponent("for-report.pkpass")
        let r = try sandbox.run("export", ["pass.fr.avomark.lerendezvous/23403552810", "--scrub", "-o", scrubbed.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let secrets = ["GERMAINE", "DUPONT", "Germaine", "Dupont", "Bienvenue", "23403552810", "Carte de fid",
                       "44.8358213", "-0.57572959999993", "44.83359562", "df6f7e550fcdd4c019262fe4ce4e5976", "avomark.fr"]
        let secretsJSON = String(decoding: try JSONSerialization.data(withJSONObject: secrets), as: UTF8.self)
        let out = try HandOn.run("/usr/bin/python3", ["-c", Self.inspect, scrubbed.path, secretsJSON])
        XCTAssertEqual(out.status, 0, out.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["found"] as? [String], [], "personal values survived")
        XCTAssertEqual(report["manifestMatches"] as? Bool, true)
        let pass = try XCTUnwrap(report["pass"] as? [String: Any])
        XCTAssertEqual(pass["organizationName"] as? String, "Le rendez vous", "the issuer stays")
        let locations = try XCTUnwrap(pass["locations"] as? [[String: Any]])
        XCTAssertEqual(locations.count, 3)
        for place in locations {
            XCTAssertEqual(place["latitude"] as? Double, 0)
            XCTAssertEqual((place["relevantText"] as? String)?.count, "Bienvenue GERMAINE DUPONT\nLe rendez vous".count)
        }
        let labels = ((pass["storeCard"] as? [String: Any])?["secondaryFields"] as? [[String: Any]])?.compactMap { $0["label"] as? String }
        XCTAssertEqual(labels, ["Titulaire de la carte", "Offre(s) du moment"], "labels stay")
    }

    /// Issue 38 item 1: a `pass.strings` entry no field uses any more (`"GREETING" = "Hallo …";`)
    /// named the holder in the scrubbed copy. Every translation except a kept label's is replaced,
    /// in each file's own encoding: UTF-8, UTF-16 LE and UTF-16 BE with their byte-order marks.
    func testStringsEntriesNoFieldUsesLoseTheNameInEveryEncoding() throws {
        let sandbox = try Sandbox()
        let original = sandbox.dir.appendingPathComponent("greeting.pkpass")
        func strings(_ text: String, _ encoding: String.Encoding, bom: [UInt8]) -> String {
            (Data(bom) + text.data(using: encoding)!).base64EncodedString()
        }
        let de = #""NAME_LABEL" = "Inhaber";"# + "\n" + #""HOLDER" = "Ada Lovelace";"# + "\n"
            + #"/* left over from last year */ "GREETING" = "Hallo Ada Lovelace, willkommen";"# + "\n"
        let fr = #""NAME_LABEL" = "Titulaire"; "GREETING" = "Bonjour Ada Lovelace";"# + "\n"
        let es = #""NAME_LABEL" = "Titular"; "Ada Lovelace" = "Hola Ada Lovelace";"# + "\n"
        try HandOn.forge(set: [
            "serialNumber": "SCRUB-STRINGS-1",
            "eventTicket": ["primaryFields": [["key": "name", "label": "NAME_LABEL", "value": "HOLDER"]]],
            "__files__": ["de.lproj/pass.strings": strings(de, .utf8, bom: []),
                          "fr.lproj/pass.strings": strings(fr, .utf16LittleEndian, bom: [0xFF, 0xFE]),
                          "es.lproj/pass.strings": strings(es, .utf16BigEndian, bom: [0xFE, 0xFF])],
        ], to: original)
        XCTAssertEqual(try sandbox.run("add", ["--yes", original.path]).status, 0)
        let scrubbed = sandbox.dir.appendingPathComponent("for-report.pkpass")
        let r = try sandbox.run("export", ["pass.org.passconduit.event/SCRUB-STRINGS-1", "--scrub", "-o", scrubbed.path])
        XCTAssertEqual(r.status, 0, r.stderr)

        // Python reads each file in its own encoding (by its mark), not through our parser.
        let read = #"""
        import json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        out = {}
        for n in z.namelist():
            if n.endswith(".lproj/pass.strings"):
                b = z.read(n)
                enc = "utf-16-le" if b[:2] == b"\xff\xfe" else "utf-16-be" if b[:2] == b"\xfe\xff" else "utf-8"
                out[n] = {"encoding": enc, "text": (b[2:] if enc != "utf-8" else b).decode(enc)}
        print(json.dumps(out))
        """#
        let out = try HandOn.run("/usr/bin/python3", ["-c", read, scrubbed.path])
        XCTAssertEqual(out.status, 0, out.stderr)
        let files = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: [String: String]])
        XCTAssertEqual(files["de.lproj/pass.strings"]?["encoding"], "utf-8")
        XCTAssertEqual(files["fr.lproj/pass.strings"]?["encoding"], "utf-16-le")
        XCTAssertEqual(files["es.lproj/pass.strings"]?["encoding"], "utf-16-be")
        for (name, file) in files {
            let text = file["text"] ?? ""
            for secret in ["Ada", "Lovelace", "Hallo", "Bonjour", "Hola", "willkommen", "GREETING", "left over"] {
                XCTAssertFalse(text.contains(secret), "\(name) keeps \(secret): \(text)")
            }
            XCTAssertTrue(text.contains(#""NAME_LABEL" = "#), "\(name) keeps the label's translation: \(text)")
        }
        XCTAssertTrue(files["de.lproj/pass.strings"]?["text"]?.contains(#""NAME_LABEL" = "Inhaber";"#) ?? false)
        XCTAssertTrue(files["fr.lproj/pass.strings"]?["text"]?.contains(#""NAME_LABEL" = "Titulaire";"#) ?? false)
        XCTAssertTrue(files["es.lproj/pass.strings"]?["text"]?.contains(#""NAME_LABEL" = "Titular";"#) ?? false)
        // The copy still reads: three entries in German (the label, the replaced value, the leftover).
        let show = try sandbox.run("scan", ["--json", "--lang", "de", scrubbed.path])
        XCTAssertEqual((show.objects.first?["error"] as? [String: Any])?["code"] as? String, "missing-signature", show.stdout)
    }

    func testScrubNamesExactlyOnePass() throws {
        let sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.run("export", ["--all", "--scrub"]).status, 64)
        XCTAssertEqual(try sandbox.run("export", ["a", "b", "--scrub"]).status, 64)
        // One pass is a .pkpass: a bundle's name for it is refused (issue 26 item 12).
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        let bundle = try sandbox.run("export", ["pass.org.passconduit.event/EVT-2026-0001", "--scrub", "-o", "x.pkpasses"])
        XCTAssertEqual(bundle.status, 64, bundle.stderr)
        XCTAssertTrue(bundle.stderr.contains("name the file x.pkpass"), bundle.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.dir.appendingPathComponent("x.pkpasses").path))
    }
}
