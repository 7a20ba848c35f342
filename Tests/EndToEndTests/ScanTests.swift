import Foundation
import XCTest

/// `passconduit scan` on every sample message shape (Samples/messages/README.md), JSON compared
/// field by field.
final class ScanTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    func scan(_ sample: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let run = try sandbox.run("scan", ["--json", Run.sample("messages/" + sample)])
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        XCTAssertEqual(run.stderr, "", file: file, line: line)
        return run.objects
    }

    func source(_ object: [String: Any]) -> [String: Any] { object["source"] as? [String: Any] ?? [:] }
    func pass(_ object: [String: Any]) -> [String: Any] { object["pass"] as? [String: Any] ?? [:] }

    func testPassByTypeAndNameHasEveryDocumentedField() throws {
        let found = try scan("type.eml")
        XCTAssertEqual(found.count, 1)
        let object = found[0]
        XCTAssertEqual(object["schema"] as? Int, 1)
        XCTAssertEqual(object["status"] as? String, "valid")
        XCTAssertTrue(object["error"] is NSNull)
        XCTAssertEqual(object["library"] as? String, "new")
        let where_ = source(object)
        XCTAssertEqual(where_["input"] as? String, Run.sample("messages/type.eml"))
        XCTAssertEqual(where_["message"] as? Int, 1)
        XCTAssertEqual(where_["messageId"] as? String, "<type-1@passconduit.example>")
        XCTAssertEqual(where_["subject"] as? String, "Your ticket for The Linux Philharmonic")
        XCTAssertEqual(where_["part"] as? String, "2")
        XCTAssertEqual(where_["filename"] as? String, "ticket.pkpass")
        XCTAssertEqual(where_["contentType"] as? String, "application/vnd.apple.pkpass")
        XCTAssertEqual(where_["detectedBy"] as? [String], ["content-type", "extension", "magic"])
        let info = pass(object)
        XCTAssertEqual(info["passTypeIdentifier"] as? String, "pass.org.passconduit.event")
        XCTAssertEqual(info["serialNumber"] as? String, "EVT-2026-0001")
        XCTAssertEqual(info["teamIdentifier"] as? String, "PCTEAM0001")
        XCTAssertEqual(info["organizationName"] as? String, "Passconduit Arena")
        XCTAssertEqual(info["description"] as? String, "Concert ticket for The Linux Philharmonic")
        XCTAssertEqual(info["kind"] as? String, "eventTicket")
        XCTAssertEqual(info["kindName"] as? String, "Event Ticket")
        XCTAssertEqual(info["relevantDate"] as? String, "2037-06-12T17:00:00Z")
        XCTAssertEqual(info["voided"] as? Bool, false)
        XCTAssertEqual((info["signer"] as? [String: Any])?["signingTime"] as? String, "2026-03-01T10:00:00Z")
        XCTAssertEqual((info["icon"] as? [String: Any])?["file"] as? String, "icon@3x.png")
        XCTAssertEqual(info["sha256"] as? String, try sha256(ofSample: "passes/event-ticket.pkpass"))
        // The name and type to send it on with (issue 42 item 4), whatever label it arrived under.
        XCTAssertEqual(info["filename"] as? String, "Passconduit Arena Concert ticket for The Linux Philharmonic.pkpass")
        XCTAssertEqual(info["contentType"] as? String, "application/vnd.apple.pkpass")
    }

    func testVerificationDoesNotReadTheOpenSSLConfiguration() throws {
        // A configuration that activates only OpenSSL's null provider: read, it would leave no
        // digest or key algorithm, and no pass could be verified. passconduit initialises libcrypto
        // without reading openssl.cnf or $OPENSSL_CONF, so the pass is valid either way.
        let conf = sandbox.dir.appendingPathComponent("null-provider.cnf")
        try Data("openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n[provider_sect]\nnull = null_sect\n[null_sect]\nactivate = 1\n".utf8)
            .write(to: conf)
        let run = try sandbox.run("scan", ["--json", Run.sample("messages/type.eml")], environment: ["OPENSSL_CONF": conf.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.objects.map { $0["status"] as? String }, ["valid"], run.stdout + run.stderr)
    }

    func testTypeWithCommentAndNoNameIsFoundByTypeAndContent() throws {
        let found = try scan("type-only.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(source(found[0])["detectedBy"] as? [String], ["content-type", "magic"])
        XCTAssertTrue(source(found[0])["filename"] is NSNull)
        XCTAssertEqual(pass(found[0])["kind"] as? String, "coupon")
    }

    func testOctetStreamWithUpperCaseNameIsFoundByNameAndContent() throws {
        let found = try scan("name-only.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(source(found[0])["detectedBy"] as? [String], ["extension", "magic"])
        XCTAssertEqual(source(found[0])["filename"] as? String, "BoardingPass.PKPASS")
        XCTAssertEqual(source(found[0])["contentType"] as? String, "application/octet-stream")
        XCTAssertEqual(pass(found[0])["kind"] as? String, "boardingPass")
    }

    func testNamelessGenericPartIsFoundByContentOnly() throws {
        let found = try scan("content-only.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(source(found[0])["detectedBy"] as? [String], ["magic"])
        XCTAssertEqual(found[0]["status"] as? String, "valid")
    }

    func testPassMislabelledAsZipIsFoundByContent() throws {
        let found = try scan("zip-named.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(source(found[0])["detectedBy"] as? [String], ["magic"])
        XCTAssertEqual(pass(found[0])["kind"] as? String, "storeCard")
    }

    func testRFC2231ContinuedNameIsDecoded() throws {
        let found = try scan("rfc2231-name.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(source(found[0])["filename"] as? String, "Kundenkarte München.pkpass")
        XCTAssertEqual(source(found[0])["detectedBy"] as? [String], ["extension", "magic"])
    }

    func testRFC2047NameAndSubjectAreDecoded() throws {
        let found = try scan("rfc2047-name.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(source(found[0])["filename"] as? String, "Mitgliedskarte.pkpass")
        XCTAssertEqual(source(found[0])["subject"] as? String, "Mitgliedskarte für Ana")
        XCTAssertEqual(source(found[0])["detectedBy"] as? [String], ["extension", "magic"])
    }

    func testPassInForwardedMessageHasItsNestedPartPath() throws {
        let found = try scan("forwarded.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(source(found[0])["part"] as? String, "2.2")
        XCTAssertEqual(source(found[0])["messageId"] as? String, "<forwarded-1@passconduit.example>")
        XCTAssertEqual(pass(found[0])["serialNumber"] as? String, "EVT-2026-0001")
    }

    func testTwoPassesInOneMessageComeInPartOrder() throws {
        for sample in ["two-passes.eml", "two-passes-crlf.eml"] {
            let found = try scan(sample)
            XCTAssertEqual(found.map { source($0)["part"] as? String }, ["2", "3"], sample)
            XCTAssertEqual(found.map { pass($0)["kind"] as? String }, ["boardingPass", "coupon"], sample)
        }
    }

    func testBundleYieldsEveryMemberNamed() throws {
        let found = try scan("bundle.eml")
        XCTAssertEqual(found.count, 3)
        XCTAssertEqual(found.map { pass($0)["kind"] as? String }, ["eventTicket", "boardingPass", "coupon"])
        XCTAssertEqual(found.compactMap { source($0)["member"] as? String }.count, 3)
        XCTAssertTrue(found.allSatisfy { source($0)["part"] as? String == "2" })
        XCTAssertTrue(found.allSatisfy { $0["status"] as? String == "valid" })
    }

    func testQuotedPrintableTextPartsAreSkippedAndThePassFound() throws {
        let found = try scan("quoted-printable.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(source(found[0])["part"] as? String, "2")
    }

    func testMboxReportsMessageNumbers() throws {
        let found = try scan("inbox.mbox")
        XCTAssertEqual(found.map { source($0)["message"] as? Int }, [2, 4, 4])
        XCTAssertEqual(found.map { source($0)["part"] as? String }, ["2", "2", "3"])
        XCTAssertEqual(source(found[0])["messageId"] as? String, "<name-only-1@passconduit.example>")
    }

    func testMaildirReadsCurAndNewButNeverTmp() throws {
        let found = try scan("Maildir")
        XCTAssertEqual(Set(found.compactMap { pass($0)["kind"] as? String }), ["eventTicket", "coupon"])
        XCTAssertEqual(found.count, 2)
        XCTAssertTrue(found.allSatisfy { (source($0)["messagePath"] as? String)?.contains("/Maildir/tmp/") == false })
    }

    func testUntrustedPassIsReportedWithItsCode() throws {
        let found = try scan("untrusted.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found[0]["status"] as? String, "untrusted")
        XCTAssertEqual((found[0]["error"] as? [String: Any])?["code"] as? String, "untrusted-signer")
        XCTAssertNotNil(found[0]["pass"] as? [String: Any])
    }

    func testInvalidPassIsReportedWithCodeMessageAndDetail() throws {
        let found = try scan("invalid.eml")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found[0]["status"] as? String, "invalid")
        let error = found[0]["error"] as? [String: Any] ?? [:]
        XCTAssertEqual(error["code"] as? String, "manifest-mismatch")
        XCTAssertFalse((error["message"] as? String ?? "").isEmpty)
        XCTAssertFalse((error["detail"] as? String ?? "").isEmpty)
        XCTAssertTrue(found[0]["library"] is NSNull)
    }

    func testMessageWithoutPassExitsOneAndPrintsNothing() throws {
        let run = try sandbox.run("scan", ["--json", Run.sample("messages/no-pass.eml")])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "")
    }

    func testStdinMessageIsScanned() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml")))
        let run = try sandbox.run("scan", ["--json", "-"], stdin: data)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.objects.count, 1)
        XCTAssertEqual(source(run.objects[0])["input"] as? String, "-")
    }

    func testBarePassAndBundleFilesAreFoundByContentNotName() throws {
        let pass = sandbox.dir.appendingPathComponent("ticket")
        let bundle = sandbox.dir.appendingPathComponent("attachment.bin")
        try FileManager.default.copyItem(atPath: Run.sample("passes/generic.pkpass"), toPath: pass.path)
        try FileManager.default.copyItem(atPath: Run.sample("passes/bundle.pkpasses"), toPath: bundle.path)
        let run = try sandbox.run("scan", ["--json", pass.path, bundle.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.objects.count, 4)
        XCTAssertTrue(run.objects.allSatisfy { source($0)["detectedBy"] as? [String] == ["magic"] })
        XCTAssertTrue(source(run.objects[0])["part"] is NSNull)
        XCTAssertTrue(source(run.objects[0])["message"] is NSNull)
    }

    func testFileNamedLikeAPassIsOpenedAndSaysWhatIsWrong() throws {
        let run = try sandbox.run("scan", ["--json", Run.sample("passes/generic.pkpass"), Run.sample("passes/bad-not-a-zip.pkpass")])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.objects.map { source($0)["detectedBy"] as? [String] }, [["extension", "magic"], ["extension"]])
        XCTAssertEqual((run.objects.last?["error"] as? [String: Any])?["code"] as? String, "not-a-zip")
    }

    func testMissingInputGetsOneLineAndTheScanGoesOn() throws {
        let run = try sandbox.run("scan", ["--json", "/nonexistent/mail.eml", Run.sample("messages/type.eml")])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.objects.count, 1)
        XCTAssertEqual(run.stderr, "passconduit: /nonexistent/mail.eml: no such file or folder\n")
    }

    func testOnlyMissingInputExitsNoInput() throws {
        let run = try sandbox.run("scan", ["/nonexistent/mail.eml"])
        XCTAssertEqual(run.status, 66)
    }

    func testFolderThatIsNotAMaildirIsNamed() throws {
        let run = try sandbox.run("scan", [Run.sample("passes")])
        XCTAssertEqual(run.status, 66)
        XCTAssertEqual(run.stderr, "passconduit: \(Run.sample("passes")): is a folder but not a Maildir (it has no cur/ or new/ folder)\n")
    }

    func testBinaryBlobOnStdinIsADataError() throws {
        let run = try sandbox.run("scan", ["-"], stdin: Data([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]))
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.stderr, "passconduit: standard input: is binary data, neither a mail message nor a Wallet pass\n")
    }

    func testHumanCardSaysWhatWhereAndLibraryState() throws {
        let run = try sandbox.run("scan", [Run.sample("messages/type.eml")])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.hasPrefix("Event Ticket · Passconduit Arena\n  Concert ticket for The Linux Philharmonic\n"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Library     new, not in your library yet"), run.stdout)
        XCTAssertTrue(run.stdout.contains("part 2, \"ticket.pkpass\""), run.stdout)
        XCTAssertFalse(run.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
    }

    func testVerboseAddsTheTechnicalDetail() throws {
        let plain = try sandbox.run("scan", [Run.sample("messages/invalid.eml")])
        let verbose = try sandbox.run("scan", ["--verbose", Run.sample("messages/invalid.eml")])
        XCTAssertTrue(plain.stdout.contains("Status      invalid: "), plain.stdout)
        XCTAssertFalse(plain.stdout.contains("Detail"), plain.stdout)
        XCTAssertTrue(verbose.stdout.contains("Detail      manifest-mismatch: "), verbose.stdout)
        XCTAssertTrue(verbose.stdout.contains("SHA-256     "), verbose.stdout)
    }

    func testBrokenConfigNamesFileLineAndKey() throws {
        let config = sandbox.dir.appendingPathComponent("bad.toml")
        try Data("[limits]\nmax-depth = \"deep\"\n".utf8).write(to: config)
        let run = try sandbox.run("scan", ["--config", config.path, Run.sample("messages/type.eml")])
        XCTAssertEqual(run.status, 78)
        XCTAssertEqual(run.stderr, "passconduit: \(config.path):2: limits.max-depth: expected an integer, found string\n")
    }
}
