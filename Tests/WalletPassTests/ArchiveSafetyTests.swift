import Foundation
import XCTest
@testable import WalletPass

/// Hostile archives get a clear refusal in bounded time and memory.
final class ArchiveSafetyTests: XCTestCase {
    let opener = PassOpener(trust: TestSupport.trust)

    func code(_ bytes: [UInt8]) -> PassError.Code? { opener.open(bytes).error?.code }

    func testZipBombDeclaringTwoGigabytesIsRefusedFromItsDeclarationWithoutInflating() {
        let bomb = TestZip.build([TestZip.Entry("pass.json", Array(repeating: 0x20, count: 64), method: 8,
                                                declaredSize: 2_000_000_000)])
        let verdict: PassVerdict? = opener.open(bomb)
        XCTAssertEqual(verdict?.error?.code, .tooLarge)
        XCTAssertEqual(verdict?.error?.detail, "pass.json declares 2000000000 bytes uncompressed; the limit is 16777216")
    }

    func testHundredThousandEntriesAreRefusedFromTheEndRecord() {
        let entries = (0..<100_000).map { TestZip.Entry("f\($0).png") }
        let zip = TestZip.build(entries, declaredCount: 0xFFFF)
        let verdict: PassVerdict? = opener.open(zip)
        XCTAssertEqual(verdict?.error?.code, .tooLarge)
        XCTAssertNil(ZipProbe.entryNames(zip))
    }

    func testMoreEntriesThanTheLimitAreRefusedAndTheLimitItselfIsNot() {
        var limits = PassLimits()
        limits.maxEntries = 10
        let small = PassOpener(trust: TestSupport.trust, limits: limits)
        let ten = TestZip.build((0..<10).map { TestZip.Entry("f\($0).png") })
        let eleven = TestZip.build((0..<11).map { TestZip.Entry("f\($0).png") })
        XCTAssertEqual(small.open(ten).error?.code, .missingPassJSON)
        XCTAssertEqual(small.open(eleven).error?.code, .tooLarge)
    }

    func testDeclaredSizesThatAddUpPastTheTotalLimitAreRefused() {
        let entries = (0..<5).map { TestZip.Entry("f\($0).png", Array(repeating: 0, count: 15_000), method: 8, declaredSize: 15_000_000) }
        let v = opener.open(TestZip.build(entries))
        XCTAssertEqual(v.error?.code, .tooLarge)
        XCTAssertTrue(v.error?.detail.contains("in all") ?? false, v.error?.detail ?? "")
    }

    func testDeflatedEntryThatInflatesPastItsDeclaredSizeStopsAtTheDeclaredSize() {
        // bad-too-large.pkpass holds 17 MiB of zeros as strip@2x.png; declare 1000 bytes instead.
        let lying = TestZip.patchDeclaredSize(TestSupport.sample("bad-too-large.pkpass"), name: "strip@2x.png", to: 1000)
        let verdict: PassVerdict? = opener.open(lying)
        XCTAssertEqual(verdict?.error?.code, .unsafeArchive)
        XCTAssertEqual(verdict?.error?.detail, "entry \"strip@2x.png\": inflates past its declared 1000 bytes")
    }

    func testCompressionRatioNoDeflateStreamCanReachIsRefusedBeforeInflating() {
        let v = opener.open(TestZip.build([TestZip.Entry("logo.png", [0x03, 0x00], method: 8, declaredSize: 10_000_000)]))
        XCTAssertEqual(v.error?.code, .unsafeArchive)
        XCTAssertTrue(v.error?.detail.contains("more than deflate can produce") ?? false)
    }

    func testStoredEntryWhoseSizesDisagreeIsRefusedBeforeReading() {
        let v = opener.open(TestZip.build([TestZip.Entry("pass.json", Array("{}".utf8), declaredSize: 100)]))
        XCTAssertEqual(v.error?.detail, "entry \"pass.json\": is stored but declares 2 bytes stored and 100 bytes uncompressed")
    }

    func testDeflatedEntryShorterThanDeclaredIsRefused() {
        // A deflate stream holding "{}" (fixed Huffman, final block), declared as 100 bytes.
        let v = opener.open(TestZip.build([TestZip.Entry("pass.json", [0xAB, 0xAE, 0x05, 0x00], method: 8, declaredSize: 100)]))
        XCTAssertEqual(v.error?.code, .unsafeArchive, v.error?.description ?? "")
    }

    func testUnsafeNamesAreRefusedBeforeInflating() {
        let names: [[UInt8]] = [
            Array("../pass.json".utf8), Array("/pass.json".utf8), Array("a\\b.png".utf8), Array("C:pass.json".utf8),
            Array("en.lproj/../../x".utf8), Array("en.lproj//x".utf8), Array("pass.json".utf8) + [0] + Array(".png".utf8),
            Array("./pass.json".utf8), [0xFF, 0xFE, 0x41], Array("x\ny".utf8), Array("a/b/c.png".utf8), [],
        ]
        for name in names {
            let v = opener.open(TestZip.build([TestZip.Entry(rawName: name, [1, 2, 3])]))
            XCTAssertEqual(v.error?.code, .unsafeArchive, "\(name): \(v.error?.description ?? "accepted")")
        }
    }

    func testSymlinksDevicesAndEncryptedEntriesAreRefused() {
        let link = TestZip.Entry("icon.png", Array("/etc/passwd".utf8), externalAttributes: 0o120777 << 16)
        XCTAssertEqual(opener.open(TestZip.build([link])).error?.detail, "entry \"icon.png\" is a symbolic link")
        let fifo = TestZip.Entry("icon.png", [], externalAttributes: 0o010644 << 16)
        XCTAssertEqual(code(TestZip.build([fifo])), .unsafeArchive)
        let encrypted = TestZip.Entry("pass.json", [1, 2, 3], flags: 0x0801)
        XCTAssertEqual(opener.open(TestZip.build([encrypted])).error?.detail, "entry \"pass.json\" is encrypted")
    }

    func testDuplicateNamesExactAndByLetterCaseAreRefused() {
        XCTAssertEqual(code(TestZip.build([TestZip.Entry("pass.json", [1]), TestZip.Entry("pass.json", [2])])), .unsafeArchive)
        let v = opener.open(TestZip.build([TestZip.Entry("en.lproj/pass.strings", [1]), TestZip.Entry("EN.lproj/pass.strings", [2])]))
        XCTAssertEqual(v.error?.detail, "entries \"en.lproj/pass.strings\" and \"EN.lproj/pass.strings\" differ only in letter case")
    }

    func testCompressionMethodsOtherThanStoreAndDeflateAreRefused() {
        XCTAssertEqual(code(TestZip.build([TestZip.Entry("pass.json", [1], method: 12)])), .unsafeArchive)
    }

    func testZipFoundationReproducersGetAVerdictInsteadOfTrappingOrLooping() {
        for name in ["bad-offset.zip", "truncated-deflate.zip"] {
            let verdict: PassVerdict? = opener.open(TestSupport.fixture("zip-repro/\(name)"))
            XCTAssertEqual(verdict?.status, .invalid, name)
            XCTAssertTrue([.notAZip, .unsafeArchive].contains(verdict?.error?.code), "\(name): \(String(describing: verdict?.error))")
        }
    }

    func testTruncatedAndEmptyInputsAreNotAZip() {
        let good = TestSupport.sample("generic.pkpass")
        for cut in [0, 1, 21, 22, 100, good.count / 2, good.count - 1] {
            let v = opener.open(Array(good.prefix(cut)))
            XCTAssertEqual(v.status, .invalid, "\(cut)")
            XCTAssertNotNil(v.error, "\(cut)")
        }
        XCTAssertEqual(code([]), .notAZip)
    }

    func testArchiveLargerThanTheLimitIsRefusedBeforeParsing() {
        var limits = PassLimits()
        limits.maxArchiveBytes = 1000
        let v = PassOpener(trust: TestSupport.trust, limits: limits).open(TestSupport.sample("generic.pkpass"))
        XCTAssertEqual(v.error?.code, .tooLarge)
    }

    func testProbeListsNamesFromTheCentralDirectoryOnly() {
        XCTAssertEqual(ZipProbe.entryNames(TestSupport.sample("coupon.pkpass")),
                       ["pass.json", "icon.png", "icon@2x.png", "icon@3x.png", "manifest.json", "signature"])
        XCTAssertEqual(ZipProbe.entryNames(TestSupport.sample("bundle.pkpasses")),
                       ["event-ticket.pkpass", "boarding-pass.pkpass", "coupon.pkpass"])
        XCTAssertNil(ZipProbe.entryNames(TestSupport.sample("bad-not-a-zip.pkpass")))
        XCTAssertNil(ZipProbe.entryNames(Array("PK\u{3}\u{4} not really".utf8)))
        // The 2 GB bomb is listed without inflating anything.
        let bomb = TestZip.build([TestZip.Entry("pass.json", [0], method: 8, declaredSize: 2_000_000_000)])
        XCTAssertEqual(ZipProbe.entryNames(bomb), ["pass.json"])
        XCTAssertEqual(ZipProbe.entryNames(TestZip.build((0..<5).map { TestZip.Entry("f\($0)") }), maxEntries: 4), nil)
    }

    func testMacZipsWithSizesBesideDataDescriptorsOpenButMismatchedLocalNamesDoNot() {
        var zip = TestZip.build([TestZip.Entry("pass.json", Array("{}".utf8)), TestZip.Entry("icon.png", [1])])
        // Rename the first local header only: the central directory still says pass.json.
        zip[30] = UInt8(ascii: "P")
        let v = opener.open(zip)
        XCTAssertEqual(v.error?.code, .unsafeArchive, v.error?.description ?? "")
    }
}
