import XCTest
@testable import Conduit

final class DetectionTests: XCTestCase {
    func testContentTypeInAnyCaseWithParametersAndComments() {
        let found = Detection.labels(mimeType: "Application/VND.Apple.PKPass (Wallet) ; name=\"x\"", names: [])
        XCTAssertEqual(found.reasons, [.contentType])
        XCTAssertEqual(found.kind, .pass)
    }

    func testBundleContentType() {
        XCTAssertEqual(Detection.labels(mimeType: "application/vnd.apple.pkpasses", names: []).kind, .bundle)
    }

    func testNameUnderOctetStreamIsAnExtensionReason() {
        let found = Detection.labels(mimeType: "application/octet-stream", names: ["Boarding Pass.PKPASS"])
        XCTAssertEqual(found.reasons, [.fileExtension])
        XCTAssertEqual(found.kind, .pass)
    }

    func testTypeAndNameKeepTheirOrder() {
        let found = Detection.labels(mimeType: "application/vnd.apple.pkpass", names: ["a.pkpass", "b.pkpass"])
        XCTAssertEqual(found.reasons, [.contentType, .fileExtension])
    }

    func testNameWithPathAndTrailingDotIsRecognised() {
        XCTAssertEqual(Detection.kindForName("C:\\Users\\x\\ticket.pkpasses."), .bundle)
        XCTAssertEqual(Detection.kindForName("../../ticket.pkpass"), .pass)
    }

    func testLookalikeNamesAreNotPasses() {
        XCTAssertNil(Detection.kindForName(".pkpass"))
        XCTAssertNil(Detection.kindForName("ticket.pkpass.zip"))
        XCTAssertNil(Detection.kindForName("ticket_pkpass"))
        XCTAssertNil(Detection.kindForName("ticket\u{0E}pkpass"))   // 0x0E | 0x20 is a dot: must not match
        XCTAssertNil(Detection.kindForName("ticket.pkpa55"))
        XCTAssertEqual(Detection.kindForName("Ticket.PkPaSs"), .pass)
        XCTAssertEqual(Detection.kindForName("Fahrkarte München.pkpass"), .pass)
        XCTAssertEqual(Detection.labels(mimeType: "application/zip", names: ["x.zip"]).reasons, [])
    }

    func testZipSignatureInEachTransferEncoding() {
        XCTAssertTrue(ZipSignature.starts([0x50, 0x4B, 0x03, 0x04, 0x14][...]))
        XCTAssertTrue(ZipSignature.startsBase64(Array("\r\nUEsDBBQAAAAIA".utf8)[...]))
        XCTAssertFalse(ZipSignature.startsBase64(Array("iVBORw0KGgo".utf8)[...]))   // a PNG
        XCTAssertTrue(ZipSignature.startsQuotedPrintable(Array("PK=03=04=14=00".utf8)[...]))
        XCTAssertTrue(ZipSignature.startsQuotedPrintable(Array("PK=03=04".lowercased().utf8)[...]) == false)
        XCTAssertFalse(ZipSignature.starts(Array("PK\u{3}".utf8)[...]))
    }

    func testCentralDirectoryDecidesPassOrBundle() {
        XCTAssertEqual(Detection.kind(fromEntryNames: ["pass.json", "manifest.json", "signature"]), .pass)
        XCTAssertEqual(Detection.kind(fromEntryNames: ["a.pkpass", "b.pkpass"]), .bundle)
        XCTAssertNil(Detection.kind(fromEntryNames: ["word/document.xml", "[Content_Types].xml"]))
        XCTAssertNil(Detection.kind(fromEntryNames: ["dir/pass.json"]))
    }

    func testOnlyZipLikeMagicAnswersAreReadFurther() {
        XCTAssertTrue(Detection.magicSuggestsZip("application/zip"))
        XCTAssertTrue(Detection.magicSuggestsZip("application/vnd.apple.pkpass"))
        XCTAssertFalse(Detection.magicSuggestsZip("image/png"))
        XCTAssertFalse(Detection.magicSuggestsZip("application/vnd.openxmlformats-officedocument.wordprocessingml.document"))
    }
}
