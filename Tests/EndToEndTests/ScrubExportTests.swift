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

    /// Issue 40 item 5: the keys of iOS 18-27 on a signed poster event ticket with a poster
    /// generic style, upcoming events, featured actions, every event guide and airline service
    /// link, seats and an attendee, and their translations in UTF-8 and UTF-16 pass.strings: no
    /// personal value survives, in any file, in any of the three encodings. Before, the copy
    /// kept `eventLogoText`, `trackBagsURL`, the featured actions' URLs and identifiers, and
    /// every key passconduit did not know, verbatim.
    func testNoValueOfTheKeysOfIOS18To27SurvivesInAnyEncoding() throws {
        let sandbox = try Sandbox()
        let original = sandbox.dir.appendingPathComponent("season.pkpass")
        var secrets = ["Ada Lovelace", "Gala for Lovelace", "tok-FA-55aa77", "fa-member-ada-0042", "PNRBAG9",
                       "TKT-PARK-31", "Private Session Lovelace", "up-ada-1", "2026-07-01T20", "Annex Lovelace",
                       "ORD-7781", "ada-header", "5f2bd1c0e9a8", "Backstage Lovelace", "Locker 99-ADA", "Q77",
                       "ROW-ZZ9", "Ada-2019-Gold", "CUST-ADA-8812", "2026-06-30T18", "Gold Circle Lovelace",
                       "Sitzung Lovelace", "Soiree Lovelace", "+44 20 7946 0958", "ada@venue.example"]
        // Every URL and contact key Wallet shows below a pass (PassLinkKey), each with a secret.
        let linkKeys = ["directionsInformationURL", "parkingInformationURL", "purchaseParkingURL", "transitInformationURL",
                        "orderFoodURL", "merchandiseURL", "bagPolicyURL", "accessibilityURL", "addOnURL", "contactVenueWebsite",
                        "transferURL", "sellURL", "managementURL", "changeSeatURL", "upgradeURL", "purchaseAdditionalBaggageURL",
                        "trackBagsURL", "reportLostBagURL", "purchaseLoungeAccessURL", "purchaseWifiURL", "entertainmentURL",
                        "requestWheelchairURL", "registerServiceAnimalURL", "transitProviderWebsiteURL"]
        var edits: [String: Any] = [:]
        for (n, key) in linkKeys.enumerated() {
            let secret = "LNK\(n)X\(key.prefix(4).uppercased())"
            edits[key] = "https://issuer.example/\(key)?ref=\(secret)"
            secrets.append(secret)
        }
        edits["trackBagsURL"] = "https://air.example/bags?pnr=PNRBAG9"
        edits["contactVenueEmail"] = "ada@venue.example"
        edits["transitProviderEmail"] = "mailto:ada@venue.example"
        edits["contactVenuePhoneNumber"] = "+44 20 7946 0958"
        edits["transitProviderPhoneNumber"] = "tel:+44 20 7946 0958"
        func strings(_ text: String, _ encoding: String.Encoding, bom: [UInt8]) -> String {
            (Data(bom) + text.data(using: encoding)!).base64EncodedString()
        }
        let en = #""EVENT_LOGO" = "Gala for Lovelace"; "UPCOMING_NAME" = "Private Session Lovelace"; "TIER_LABEL" = "Tier";"# + "\n"
        let de = #""EVENT_LOGO" = "Soiree Lovelace"; "UPCOMING_NAME" = "Sitzung Lovelace"; "TIER_LABEL" = "Stufe";"# + "\n"
        let fr = #""EVENT_LOGO" = "Soiree Lovelace"; "ADMISSION" = "Gold Circle Lovelace";"# + "\n"
        edits.merge([
            "serialNumber": "SCRUB-2026-1",
            "eventLogoText": "EVENT_LOGO",
            "logoSymbolName": "ticket.circle.fill",
            "preferredStyleSchemes": ["posterEventTicket", "eventTicket"],
            "issuerCustomerRef": ["customer": "CUST-ADA-8812", "tier": 3],
            "relevantDates": [["startDate": "2026-06-30T18:45:00+02:00", "endDate": "2026-06-30T23:00:00+02:00"]],
            "featuredActions": [
                ["identifier": "fa-member-ada-0042", "type": "membershipBenefits",
                 "url": "https://members.example.org/benefits?token=tok-FA-55aa77"],
                ["identifier": "fa-call", "type": "call", "url": "tel:+44 20 7946 0958"],
            ],
            "semantics": ["eventName": "Season Opening", "attendeeName": "Ada Lovelace", "admissionLevel": "ADMISSION",
                          "eventType": "PKEventTypeLivePerformance",
                          "seats": [["seatNumber": "Q77", "seatRow": "ROW-ZZ9", "seatSectionColor": "#FFD700"]]],
            "upcomingPassInformation": [[
                "type": "event", "identifier": "up-ada-1", "name": "UPCOMING_NAME", "isActive": true,
                "dateInformation": ["date": "2026-07-01T20:00:00+02:00", "timeZone": "Europe/Berlin"],
                "semantics": ["venueName": "Annex Lovelace", "venueLocation": ["latitude": 51.5, "longitude": -0.12],
                              "seats": [["seatNumber": "Q77"]]],
                "URLs": ["merchandiseURL": "https://shop.example/ada?order=ORD-7781"],
                "images": ["headerImage": ["URLs": [["URL": "https://cdn.example/ada-header.png",
                                                      "SHA256": "5f2bd1c0e9a8", "scale": 2]]],
                           "venueMap": ["reuseExisting": true]],
                "additionalInfoFields": [["key": "backstage", "label": "Backstage", "value": "Backstage Lovelace"]],
            ]],
            "eventTicket": ["primaryFields": [["key": "name", "label": "Name", "value": "Ada Lovelace"]],
                            "additionalInfoFields": [["key": "locker", "label": "Locker", "value": "Locker 99-ADA"]]],
            "posterGeneric": ["headerFields": [["key": "tier", "label": "TIER_LABEL", "value": "Gold Circle Lovelace"]],
                              "footerFields": [["key": "since", "label": "Member since", "value": "Ada-2019-Gold"]]],
            "__files__": ["en.lproj/pass.strings": strings(en, .utf8, bom: []),
                          "de.lproj/pass.strings": strings(de, .utf16LittleEndian, bom: [0xFF, 0xFE]),
                          "fr.lproj/pass.strings": strings(fr, .utf16BigEndian, bom: [0xFE, 0xFF])],
        ]) { $1 }
        try HandOn.forge(set: edits, to: original)
        let scan = try sandbox.run("scan", ["--json", original.path])
        XCTAssertEqual(scan.objects.first?["status"] as? String, "valid", "the new keys change no verdict: \(scan.stdout)")
        XCTAssertEqual(try sandbox.run("add", ["--yes", original.path]).status, 0)
        let scrubbed = sandbox.dir.appendingPathComponent("for-report.pkpass")
        let r = try sandbox.run("export", ["pass.org.passconduit.event/SCRUB-2026-1", "--scrub", "-o", scrubbed.path])
        XCTAssertEqual(r.status, 0, r.stderr)

        // Every file, searched for each secret in UTF-8, UTF-16 LE and UTF-16 BE, by Python.
        let find = #"""
        import json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        found = []
        for n in z.namelist():
            b = z.read(n)
            for v in json.loads(sys.argv[2]):
                for enc in ("utf-8", "utf-16-le", "utf-16-be"):
                    if v.encode(enc) in b:
                        found.append("%s: %s (%s)" % (n, v, enc))
        print(json.dumps({"found": found, "pass": json.loads(z.read("pass.json"))}))
        """#
        let secretsJSON = String(decoding: try JSONSerialization.data(withJSONObject: secrets), as: UTF8.self)
        let out = try HandOn.run("/usr/bin/python3", ["-c", find, scrubbed.path, secretsJSON])
        XCTAssertEqual(out.status, 0, out.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["found"] as? [String], [], "personal values survived")
        // The shape stays: what kind of action, which links, which event type, the labels.
        let pass = try XCTUnwrap(report["pass"] as? [String: Any])
        XCTAssertEqual((pass["featuredActions"] as? [[String: Any]])?.map { $0["type"] as? String }, ["membershipBenefits", "call"])
        let telURL = (pass["featuredActions"] as? [[String: Any]])?.last?["url"] as? String ?? ""
        XCTAssertTrue(telURL.hasPrefix("tel:+") && telURL.count == "tel:+44 20 7946 0958".count, "a tel: link keeps its scheme: \(telURL)")
        XCTAssertEqual(pass["trackBagsURL"] as? String, "https://example.invalid/scrubbed")
        XCTAssertNotEqual(pass["eventLogoText"] as? String, "EVENT_LOGO", "the event logo text is replaced")
        XCTAssertEqual((pass["eventLogoText"] as? String)?.count, "EVENT_LOGO".count)
        XCTAssertEqual(pass["logoSymbolName"] as? String, "ticket.circle.fill", "a symbol's name names no one")
        let entry = try XCTUnwrap((pass["upcomingPassInformation"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["type"] as? String, "event")
        XCTAssertEqual((entry["additionalInfoFields"] as? [[String: Any]])?.first?["label"] as? String, "Backstage")
        XCTAssertEqual(((pass["semantics"] as? [String: Any])?["seats"] as? [[String: Any]])?.first?["seatSectionColor"] as? String, "#FFD700")
        XCTAssertEqual((((pass["posterGeneric"] as? [String: Any])?["footerFields"] as? [[String: Any]])?.first?["label"]) as? String, "Member since")
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
