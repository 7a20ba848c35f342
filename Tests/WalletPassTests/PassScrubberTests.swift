import Foundation
import XCTest
@testable import WalletPass
import Support

/// Scrubbed copies (`export --scrub`) of every real pass and every readable sample: they open with
/// "no signature", keep the files, keys, images and sizes, and carry none of the personal values.
final class PassScrubberTests: XCTestCase {
    /// The copies of every real pass in Fixtures/pkpass-real (origins in its MANIFEST.md).
    static var realPasses: [URL] {
        let dir = TestSupport.fixtures.appendingPathComponent("pkpass-real")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".pkpass") }.sorted().map { dir.appendingPathComponent($0) }
    }

    static var samplePasses: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestSupport.samples.path)) ?? []
        return names.filter { $0.hasSuffix(".pkpass") && !$0.hasPrefix("bad-") }.sorted().map { TestSupport.samples.appendingPathComponent($0) }
    }

    /// The values that must not survive: every field value and attributed value, barcode messages
    /// and alt texts, the serial number and the authentication token, the description, logo text
    /// and event logo text, every event guide and airline service link, featured actions' URLs and
    /// identifiers, the relevant texts of locations and beacons, the relevant and expiry dates.
    static func personalValues(_ json: [String: JSONValue]) -> [String] {
        var values: [String] = []
        for key in ["serialNumber", "authenticationToken", "description", "logoText", "eventLogoText", "relevantDate",
                    "expirationDate"] + PassDocument.linkKeys {
            if let v = json[key]?.text { values.append(v) }
        }
        for action in json["featuredActions"]?.array ?? [] {
            for key in ["url", "identifier"] { if let v = action[key]?.text { values.append(v) } }
        }
        for place in (json["locations"]?.array ?? []) + (json["beacons"]?.array ?? []) {
            if let v = place["relevantText"]?.text { values.append(v) }
        }
        for code in (json["barcodes"]?.array ?? []) + (json["barcode"].map { [$0] } ?? []) {
            for key in ["message", "altText"] { if let v = code[key]?.text { values.append(v) } }
        }
        for kind in PassKind.allCases {
            guard let style = json[kind.rawValue]?.object else { continue }
            for (_, group) in style {
                for field in group.array ?? [] {
                    for key in ["value", "attributedValue"] { if let v = field[key]?.text { values.append(v) } }
                }
            }
        }
        return values
    }

    /// Strings a scrubbed pass keeps on purpose (labels, keys, names of the issuer, file names):
    /// a personal value that is part of one of them cannot be told apart from it.
    static func keptTexts(_ json: JSONValue, names: [String]) -> [String] {
        var kept = names
        func walk(_ v: JSONValue, key: String?) {
            switch v {
            case .object(let o):
                for (k, child) in o {
                    kept.append(k)
                    if ["label", "organizationName", "passTypeIdentifier", "teamIdentifier",
                        "changeMessage", "key", "format", "messageEncoding"].contains(k), let t = child.text {
                        kept.append(t)
                    }
                    if k == "associatedStoreIdentifiers" || k == "auxiliaryStoreIdentifiers" {
                        kept += (child.array ?? []).compactMap(\.text)
                    }
                    walk(child, key: k)
                }
            case .array(let a): a.forEach { walk($0, key: key) }
            default: break
            }
        }
        walk(json, key: nil)
        return kept
    }

    /// Every key path in a JSON value ("eventTicket.primaryFields[].value").
    static func keyPaths(_ v: JSONValue, _ prefix: String = "") -> Set<String> {
        switch v {
        case .object(let o):
            var out: Set<String> = []
            for (k, child) in o { out.insert(prefix + k); out.formUnion(keyPaths(child, prefix + k + ".")) }
            return out
        case .array(let a): return a.reduce(into: Set<String>()) { $0.formUnion(keyPaths($1, prefix + "[].")) }
        default: return []
        }
    }

    func testEveryRealAndSamplePassScrubsWithoutItsPersonalValues() throws {
        let passes = Self.realPasses + Self.samplePasses
        XCTAssertGreaterThan(Self.realPasses.count, 50, "the real corpus is missing")
        let opener = PassOpener(trust: TestSupport.trust)
        var scrubbed = 0, valuesChecked = 0
        for url in passes {
            let name = url.lastPathComponent
            let original = [UInt8](try Data(contentsOf: url))
            guard case .success(let before) = PassArchive.open(original, limits: .default),
                  let beforeJSON = before["pass.json"], case .success(let beforeValue) = JSONReader.parse(beforeJSON),
                  let beforeObject = beforeValue.object else { continue }  // not a readable pass: nothing to scrub
            var scrubber = PassScrubber()
            let bytes: [UInt8]
            do {
                bytes = try scrubber.scrub(original)
            } catch {
                XCTFail("\(name): \(error)")
                continue
            }
            scrubbed += 1
            let verdict = opener.open(bytes)
            XCTAssertEqual(verdict.error?.code, .missingSignature, name)
            let after = try PassArchive.open(bytes, limits: .default).get()
            XCTAssertEqual(Set(after.names), Set(before.names).subtracting(["signature"]).union(["manifest.json"]), name)
            XCTAssertNil(after["signature"], name)
            for file in before.names where file.hasSuffix(".png") {
                XCTAssertEqual(after[file], before[file], "\(name): \(file) is kept as it was")
            }
            // The manifest matches the new contents.
            let manifest = try XCTUnwrap(JSONReader.parse(after["manifest.json"]!).get().object, name)
            for file in after.names where file != "manifest.json" {
                XCTAssertEqual(manifest[file]?.string, Digest.hex(.sha1, after[file]!), "\(name): \(file)")
            }
            let afterValue = try JSONReader.parse(after["pass.json"]!).get()
            XCTAssertTrue(Self.keyPaths(afterValue).isSubset(of: Self.keyPaths(beforeValue)), "\(name): pass.json gained keys")
            XCTAssertEqual(Self.keyPaths(afterValue), Self.keyPaths(beforeValue), "\(name): pass.json lost keys")

            let kept = Self.keptTexts(beforeValue, names: before.names)
            let texts = after.files.filter { !$0.name.hasSuffix(".png") }
            // Values of four or more bytes with a letter or digit (punctuation is kept on purpose).
            for value in Self.personalValues(beforeObject) where value.utf8.count >= 4 && value.contains(where: { $0.isLetter || $0.isNumber }) {
                if kept.contains(where: { $0.contains(value) }) { continue }
                valuesChecked += 1
                let needle = Array(value.utf8)
                for (file, content) in texts {
                    // Digests in the manifest are hex: only values that could not be hex are looked for there.
                    if file == "manifest.json", value.allSatisfy(\.isHexDigit), value.count < 8 { continue }
                    XCTAssertFalse(content.contains(needle), "\(name): \(file) still holds \(value.debugDescription)")
                }
                if value.utf8.count >= 6 {
                    XCTAssertFalse(bytes.contains(needle), "\(name): the archive bytes hold \(value.debugDescription)")
                }
            }
        }
        XCTAssertGreaterThan(scrubbed, 60)
        XCTAssertGreaterThan(valuesChecked, 200)
    }

    func testBarcodeMessagesKeepLengthAndKindsOfCharacters() throws {
        var scrubber = PassScrubber()
        let message = "M1DOE/JOHN            EABC123 FRAJFKLH 0400 163Y012A0001 100"
        let out = scrubber.scramble(message)
        XCTAssertEqual(out.count, message.count)
        for (a, b) in zip(message, out) {
            XCTAssertEqual(a.isUppercase, b.isUppercase)
            XCTAssertEqual(a.isNumber, b.isNumber)
            if !a.isLetter && !a.isNumber { XCTAssertEqual(a, b) } else { XCTAssertNotEqual(a, b) }
        }
        XCTAssertEqual(PassScrubber.placeholderDate("2026-06-12T19:30:15.25+02:00"), "2001-01-01T00:00:00.00+02:00")
        XCTAssertEqual(PassScrubber.placeholderDate("2026-06-12"), "2001-01-01")
    }

    /// UTF-16 pass.strings (with their byte-order mark, big- and little-endian in the corpus)
    /// stay UTF-16 with the same mark, and read back with every entry.
    func testStringsFilesKeepTheirEncodingAndByteOrderMark() throws {
        var checked = 0
        for url in Self.realPasses {
            let original = [UInt8](try Data(contentsOf: url))
            guard case .success(let before) = PassArchive.open(original, limits: .default) else { continue }
            let stringsFiles = before.names.filter { $0.hasSuffix(".lproj/pass.strings") }
            guard !stringsFiles.isEmpty, before["pass.json"] != nil else { continue }
            var scrubber = PassScrubber()
            guard let bytes = try? scrubber.scrub(original) else { continue }
            let after = try PassArchive.open(bytes, limits: .default).get()
            for file in stringsFiles {
                let old = try XCTUnwrap(before[file]), new = try XCTUnwrap(after[file])
                XCTAssertEqual(StringsEncoding(of: new), StringsEncoding(of: old), "\(url.lastPathComponent): \(file)")
                if old.starts(with: [0xFF, 0xFE]) || old.starts(with: [0xFE, 0xFF]) {
                    XCTAssertEqual(Array(new.prefix(2)), Array(old.prefix(2)), "\(url.lastPathComponent): \(file) keeps its mark")
                    checked += 1
                }
                XCTAssertEqual(StringsFile.parse(new).entries.count, StringsFile.parse(old).entries.count, "\(url.lastPathComponent): \(file)")
                XCTAssertNil(StringsFile.parse(new).problem, "\(url.lastPathComponent): \(file)")
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 10, "the corpus has a dozen UTF-16 pass.strings files")
    }

    /// An attributed value keeps its tags, attributes and entities; only its text is replaced,
    /// and a link's address becomes the placeholder.
    func testAttributedValueKeepsItsMarkupAndLosesItsText() {
        var scrubber = PassScrubber()
        let markup = #"Booking <a href="https://air.example/b?pnr=QX7Z9K&amp;n=Dupont">QX7Z9K for Dupont</a> &amp; <b>Seat 12A</b> <a href='mailto:g.dupont@example.org'>mail</a>"#
        let out = scrubber.scrambleMarkup(markup)
        XCTAssertFalse(out.contains("QX7Z9K"), out)
        XCTAssertFalse(out.contains("Dupont"), out)
        XCTAssertFalse(out.contains("dupont"), out)
        XCTAssertFalse(out.contains("12A"), out)
        XCTAssertTrue(out.contains(#"<a href="https://example.invalid/scrubbed">"#), out)
        XCTAssertTrue(out.contains("<a href='mailto:"), out)
        XCTAssertEqual(out.components(separatedBy: "</a>").count, 3, out)
        XCTAssertTrue(out.contains("</a> &amp; <b>"), out)
        XCTAssertTrue(out.contains("</b>"), out)
        // The text between the tags keeps its length.
        XCTAssertEqual(out.split(separator: "<").first?.count, "Booking ".count)
    }

    /// Travel dates, the expiry, coordinates, descriptions and location texts are replaced; an
    /// expiry still to come stays in the future, one past stays past.
    func testDatesPlacesAndDescriptionsAreReplaced() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15
        for (expiry, year) in [("2027-06-01T10:00:00+02:00", "2099"), ("2026-06-01", "2001")] {
            var scrubber = PassScrubber(now: now)
            let bytes = try scrubber.scrub(TestZip.build([TestZip.Entry("icon.png", [1, 2, 3]), TestZip.Entry("pass.json", Array("""
                {"formatVersion": 1, "passTypeIdentifier": "pass.t", "serialNumber": "S-1", "teamIdentifier": "T",
                 "organizationName": "Org", "description": "Ticket of Germaine Dupont", "logoText": "Germaine",
                 "relevantDate": "2027-03-06", "expirationDate": "\(expiry)",
                 "relevantDates": [{"startDate": "2027-03-06T10:00:00Z", "endDate": "2027-03-06T12:00:00Z"}],
                 "locations": [{"latitude": 44.8358213, "longitude": -0.5757, "relevantText": "Bienvenue GERMAINE DUPONT"}],
                 "beacons": [{"proximityUUID": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "relevantText": "Hello Germaine"}],
                 "eventTicket": {}}
                """.utf8))]))
            let json = try JSONReader.parse(try PassArchive.open(bytes, limits: .default).get()["pass.json"]!).get()
            let text = JSONText.write(json)
            for secret in ["Germaine", "GERMAINE", "Dupont", "44.83", "0.5757", "2027"] {
                XCTAssertFalse(text.contains(secret), "\(secret) survived: \(text)")
            }
            XCTAssertEqual(json["relevantDate"]?.string, "2001-01-01")
            XCTAssertEqual(json["expirationDate"]?.string?.prefix(4), Substring(year), expiry)
            XCTAssertEqual(json["locations"]?.array?.first?["latitude"]?.number, 0)
            XCTAssertEqual(json["beacons"]?.array?.first?["proximityUUID"]?.string, "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
            XCTAssertEqual(json["organizationName"]?.string, "Org")
            XCTAssertEqual(json["description"]?.string?.count, "Ticket of Germaine Dupont".count)
        }
    }

    func testScrubbedCopySaysWhatItIsInTheZipComment() throws {
        var scrubber = PassScrubber()
        let bytes = try scrubber.scrub(TestSupport.sample("event-ticket.pkpass"))
        XCTAssertTrue(bytes.contains(Array("Scrubbed copy made by passconduit".utf8)))
    }
}

private extension Array where Element == UInt8 {
    func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        let first = needle[0]
        var i = 0
        while i <= count - needle.count {
            if self[i] == first, self[i..<i + needle.count].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
