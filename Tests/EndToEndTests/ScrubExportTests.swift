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
