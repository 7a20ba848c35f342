import Foundation
import XCTest
@testable import WalletPass

final class ValueParsingTests: XCTestCase {
    func testLanguageChoicePreferredThenEnglishThenFirst() {
        let folders = ["fr", "de", "en", "pt-BR", "zh-Hans"]
        XCTAssertEqual(Localization.choose(folders, preferred: ["de_AT.UTF-8"]), "de")
        XCTAssertEqual(Localization.choose(folders, preferred: ["pt_BR.UTF-8"]), "pt-BR")
        XCTAssertEqual(Localization.choose(folders, preferred: ["pt"]), "pt-BR")
        XCTAssertEqual(Localization.choose(folders, preferred: ["zh-Hans-CN"]), "zh-Hans")
        XCTAssertEqual(Localization.choose(folders, preferred: ["it", "fr"]), "fr")
        XCTAssertEqual(Localization.choose(folders, preferred: ["C", "POSIX"]), "en")
        XCTAssertEqual(Localization.choose(["fr", "de"], preferred: ["it"]), "de")
        XCTAssertEqual(Localization.choose(["en-GB", "fr"], preferred: []), "en-GB")
        XCTAssertNil(Localization.choose([], preferred: ["de"]))
    }

    func testColoursInEveryFormRealPassesUse() {
        XCTAssertEqual(PassColor("rgb(60, 65, 76)")?.hex, "#3c414c")
        XCTAssertEqual(PassColor(" RGB( 200 , 100 , 50 ) ")?.hex, "#c86432")
        XCTAssertEqual(PassColor("rgba(10, 20, 30, 0.5)")?.alpha, 0.5)
        XCTAssertEqual(PassColor("#FFF")?.hex, "#ffffff")
        XCTAssertEqual(PassColor("#1e3a8a")?.hex, "#1e3a8a")
        XCTAssertEqual(PassColor("#11223380")?.hex, "#112233")
        for bad in ["rgb(1,2)", "rgb(256,0,0)", "#12", "blue", "rgba(1,2,3,2)", ""] { XCTAssertNil(PassColor(bad), bad) }
    }

    func testDatesKeepTheirWrittenOffset() throws {
        let d = try XCTUnwrap(PassDate("2012-07-22T14:25-08:00"))
        XCTAssertEqual(d.date.timeIntervalSince1970, 1_342_995_900)
        XCTAssertEqual(d.utcOffset, -8 * 3600)
        XCTAssertEqual(PassDate("2026-06-12T20:00:00Z")?.date.timeIntervalSince1970, 1_781_294_400)
        XCTAssertEqual(PassDate("2026-06-12T20:00:00.5+0200")?.date.timeIntervalSince1970, 1_781_287_200.5)
        XCTAssertEqual(PassDate("2026-06-12")?.utcOffset, nil)
        for bad in ["2026-13-01", "2026-06-12T25", "12/06/2026", "2026-06-12T20:00+02:00x", ""] { XCTAssertNil(PassDate(bad), bad) }
    }

    func testFieldValuesAreRenderedByStyle() {
        func render(_ json: String, zone: String = "Europe/Berlin") -> String {
            let field = PassField(try! JSONReader.parse(Array(json.utf8)).get())!
            return FieldRenderer.render(field, localize: { $0 == "K" ? "Localized" : $0 },
                                        deviceZone: TimeZone(identifier: zone)!).value
        }
        XCTAssertEqual(render(#"{"key":"a","value":"K"}"#), "Localized")
        XCTAssertEqual(render(#"{"key":"a","value":49.5,"currencyCode":"EUR"}"#), "49.50 EUR")
        XCTAssertEqual(render(#"{"key":"a","value":1200,"currencyCode":"JPY"}"#), "1200 JPY")
        XCTAssertEqual(render(#"{"key":"a","value":0.25,"numberStyle":"PKNumberStylePercent"}"#), "25%")
        XCTAssertEqual(render(#"{"key":"a","value":1250,"numberStyle":"PKNumberStyleDecimal"}"#), "1250")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00","dateStyle":"PKDateStyleMedium","timeStyle":"PKDateStyleShort"}"#),
                       "12 Jun 2026, 20:00")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00","dateStyle":"PKDateStyleNone","timeStyle":"PKDateStyleLong"}"#),
                       "20:00 +02:00")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00"}"#), "2026-06-12T20:00+02:00")
        // Wallet shows dates in the device's zone; ignoresTimeZone keeps the zone written.
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00","dateStyle":"PKDateStyleMedium","timeStyle":"PKDateStyleShort"}"#,
                              zone: "America/New_York"), "12 Jun 2026, 14:00")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00","timeStyle":"PKDateStyleLong"}"#, zone: "UTC"),
                       "18:00 UTC")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00","dateStyle":"PKDateStyleMedium","timeStyle":"PKDateStyleShort","ignoresTimeZone":true}"#,
                              zone: "America/New_York"), "12 Jun 2026, 20:00")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T01:00+02:00","dateStyle":"PKDateStyleShort"}"#, zone: "America/New_York"),
                       "2026-06-11", "the day changes with the zone")
        XCTAssertEqual(render(#"{"key":"a","value":"not a date","dateStyle":"PKDateStyleShort"}"#), "not a date")
        XCTAssertNil(PassField(try! JSONReader.parse(Array(#"{"value":"no key"}"#.utf8)).get()))
    }

    /// Issue 26 item 16: the styles Wallet applies that the card did not — a number spelled out, the
    /// full date with its weekday — and ignoresTimeZone keeping the written day with the short style.
    /// The fields are those of Apple's own sample pass (edutap__apple_passes-Generic's back).
    func testSpelledOutNumbersFullDatesWithTheirWeekdayAndFloatingShortDates() {
        func render(_ json: String, zone: String = "Europe/Berlin") -> String {
            let field = PassField(try! JSONReader.parse(Array(json.utf8)).get())!
            return FieldRenderer.render(field, localize: { $0 }, deviceZone: TimeZone(identifier: zone)!).value
        }
        XCTAssertEqual(render(#"{"key":"numberStyle","value":200,"numberStyle":"PKNumberStyleSpellOut"}"#), "two hundred")
        for (n, words) in [(0.0, "zero"), (13, "thirteen"), (42, "forty-two"), (1234, "one thousand two hundred thirty-four"),
                           (-3.25, "minus three point two five"), (2_000_005, "two million five"),
                           (1e15, "1000000000000000.0")] {
            XCTAssertEqual(FieldRenderer.format(n, currencyCode: nil, numberStyle: "PKNumberStyleSpellOut"), words, "\(n)")
        }
        XCTAssertEqual(render(#"{"key":"dateFull","value":"1980-05-07T10:00-05:00","dateStyle":"PKDateStyleFull"}"#), "Wednesday, 7 May 1980")
        XCTAssertEqual(render(#"{"key":"d","value":"1980-05-07T23:00-05:00","dateStyle":"PKDateStyleFull"}"#), "Thursday, 8 May 1980",
                       "the weekday follows the day in the device's zone")
        XCTAssertEqual(render(#"{"key":"d","value":"1980-05-07T23:00-05:00","dateStyle":"PKDateStyleFull","ignoresTimeZone":true}"#),
                       "Wednesday, 7 May 1980")
        XCTAssertEqual(render(#"{"key":"d","value":"2026-01-01","dateStyle":"PKDateStyleFull"}"#, zone: "Pacific/Honolulu"), "Thursday, 1 January 2026",
                       "a date without a time is that day everywhere")
        XCTAssertEqual(render(#"{"key":"timeFull","value":"1980-05-07T10:00-05:00","timeStyle":"PKDateStyleFull"}"#, zone: "UTC"), "15:00 UTC")
        for value in ["2026-06-12T01:00+02:00", "2026-06-12T01:00:00+02:00", "2026-06-12T01:00:00.250+02:00", "2026-06-12T01:00:00+0200"] {
            XCTAssertEqual(render(#"{"key":"d","value":"\#(value)","dateStyle":"PKDateStyleShort","timeStyle":"PKDateStyleShort","ignoresTimeZone":true}"#,
                                  zone: "America/New_York"), "2026-06-12, 01:00", value)
        }
    }

    /// The device's zone is looked up only for a date shown in it (the first `TimeZone.current`
    /// costs ~1.6 M instructions, issue 14); such a date still renders in the zone given.
    func testTheDeviceZoneIsReadOnlyForADateShownInIt() {
        var lookups = 0
        func zone() -> TimeZone { lookups += 1; return TimeZone(identifier: "America/New_York")! }
        func render(_ json: String) -> String {
            let field = PassField(try! JSONReader.parse(Array(json.utf8)).get())!
            return FieldRenderer.render(field, localize: { $0 }, deviceZone: zone()).value
        }
        XCTAssertEqual(render(#"{"key":"a","value":"K"}"#), "K")
        XCTAssertEqual(render(#"{"key":"a","value":49.5,"currencyCode":"EUR"}"#), "49.50 EUR")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00"}"#), "2026-06-12T20:00+02:00")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00","dateStyle":"PKDateStyleMedium"}"#), "12 Jun 2026")
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00","timeStyle":"PKDateStyleShort","ignoresTimeZone":true}"#),
                       "20:00")
        XCTAssertEqual(lookups, 0)
        XCTAssertEqual(render(#"{"key":"a","value":"2026-06-12T20:00+02:00","dateStyle":"PKDateStyleMedium","timeStyle":"PKDateStyleShort"}"#),
                       "12 Jun 2026, 14:00")
        XCTAssertEqual(lookups, 1)
    }

    /// An opened pass renders its fields when they are first read, in the device's zone, the same
    /// as rendering each field at once; a copy of the info shares them, a change to one copy
    /// stays in it.
    func testOpenedPassFieldsAreRenderedWhenFirstRead() throws {
        let opener = PassOpener(trust: TestSupport.trust)
        var info = try XCTUnwrap(opener.open(TestSupport.sample("event-ticket.pkpass")).pass)
        XCTAssertFalse(info.shownFields.isComputed)
        let copy = info
        let written = try XCTUnwrap(info.document.fields.headerFields.first)
        XCTAssertEqual(written.dateStyle, "PKDateStyleMedium", "the sample's header field is a date shown in the device's zone")
        XCTAssertEqual(info.headerFields.first?.value,
                       FieldRenderer.render(written, localize: { $0 }, deviceZone: TimeZone.current).value)
        XCTAssertTrue(copy.shownFields.isComputed)
        XCTAssertEqual(info.allFields.map(\.key), info.document.fields.all.map(\.key))
        info.headerFields[0].value = "changed"
        XCTAssertEqual(info.headerFields.first?.value, "changed")
        XCTAssertNotEqual(copy.headerFields.first?.value, "changed")
        XCTAssertNotEqual(info, copy)
        info.headerFields = copy.headerFields
        XCTAssertEqual(info, copy)
    }

    func testPNGSizeComesFromAValidHeaderOnly() throws {
        let icon = try XCTUnwrap(PassArchive.open(TestSupport.sample("generic.pkpass"), limits: .default).get()["icon@3x.png"])
        XCTAssertEqual(PassImage.pngSize(icon)?.width, 87)
        XCTAssertEqual(PassImage.pngSize(icon)?.height, 87)
        var corrupt = icon
        corrupt[17] ^= 0xFF  // width changed, CRC no longer matches
        XCTAssertNil(PassImage.pngSize(corrupt))
        XCTAssertNil(PassImage.pngSize(Array(icon.prefix(20))))
        XCTAssertNil(PassImage.pngSize(Array("GIF89a".utf8)))
    }

    func testDERStringsOfTheAppleMarkerExtension() {
        XCTAssertEqual(SignatureVerifier.derString([0x0C, 0x03] + Array("abc".utf8)), "abc")
        XCTAssertEqual(SignatureVerifier.derString([0x0C, 0x81, 0x03] + Array("abc".utf8)), "abc")
        XCTAssertNil(SignatureVerifier.derString([0x0C, 0x04] + Array("abc".utf8)))
        XCTAssertNil(SignatureVerifier.derString([0x05, 0x00]))
        XCTAssertNil(SignatureVerifier.derString([]))
    }
}

final class CMSCertificatesTests: XCTestCase {
    func signature(_ file: String) throws -> [UInt8] {
        try XCTUnwrap(PassArchive.open(TestSupport.sample(file), limits: .default).get()["signature"])
    }

    func testCertificatesAreSplitOffAndTheRestStaysDER() throws {
        let split = try XCTUnwrap(CMSCertificates.split(try signature("event-ticket.pkpass")))
        XCTAssertEqual(split.certificates.count, 2)  // leaf + intermediate
        XCTAssertEqual(split.certificates.map { $0.first }, [0x30, 0x30])
        let leafOnly = try XCTUnwrap(CMSCertificates.split(try signature("store-card-leaf-only.pkpass")))
        XCTAssertEqual(leafOnly.certificates.count, 1)
        XCTAssertLessThan(split.stripped.count, try signature("event-ticket.pkpass").count)
    }

    func testAnythingButPlainDERIsLeftAlone() throws {
        XCTAssertNil(CMSCertificates.split([]))
        XCTAssertNil(CMSCertificates.split([0x30, 0x80, 0x00, 0x00]))  // empty BER sequence: no SignedData
        XCTAssertNil(CMSCertificates.split([0x30, 0x80, 0x30, 0x80]))  // unterminated
        var trailing = try signature("generic.pkpass")
        trailing.append(0)
        XCTAssertNil(CMSCertificates.split(trailing))
        XCTAssertEqual(CMSCertificates.encodeLength(0x7F), [0x7F])
        XCTAssertEqual(CMSCertificates.encodeLength(0x80), [0x81, 0x80])
        XCTAssertEqual(CMSCertificates.encodeLength(0x1234), [0x82, 0x12, 0x34])
    }

    func testBERSignaturesFromApplesToolsAreSplitToo() throws {
        // Apple's signing tools write indefinite lengths (30 80 …); so does this real pass.
        let archive = try PassArchive.open(TestSupport.fixture("pkpass-real/DB8-TestPass__Lollipop.pkpass"), limits: .default).get()
        let signature = try XCTUnwrap(archive["signature"])
        XCTAssertEqual(Array(signature.prefix(2)), [0x30, 0x80])
        let split = try XCTUnwrap(CMSCertificates.split(signature))
        XCTAssertEqual(split.certificates.count, 2)
        let opener = PassOpener(trust: TestSupport.trust)
        let bytes = TestSupport.fixture("pkpass-real/DB8-TestPass__Lollipop.pkpass")
        XCTAssertEqual(opener.open(bytes).status, .valid)
        XCTAssertEqual(opener.open(bytes).status, .valid)
    }

    func testVerdictsAreTheSameWithAndWithoutTheCertificateCache() {
        // A fresh store has an empty cache; the second open of each pass uses cached certificates.
        let store = try! TrustStore.load(directories: [TestSupport.shippedTrust, TestSupport.sampleTrust])
        let opener = PassOpener(trust: store)
        for (file, status, code) in SamplePassTests.expected {
            let first = opener.open(TestSupport.sample(file)), second = opener.open(TestSupport.sample(file))
            XCTAssertEqual(first.status, status, file)
            XCTAssertEqual(first.error?.code, code, file)
            XCTAssertEqual(second, first, file)
        }
    }
}
