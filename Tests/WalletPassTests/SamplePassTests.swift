import Foundation
import XCTest
@testable import WalletPass

/// Every generated sample (Samples/make-passes.sh) gets the verdict Samples/passes/README.md
/// promises, and every refusal carries its code's user sentence.
final class SamplePassTests: XCTestCase {
    let opener = PassOpener(trust: TestSupport.trust)

    /// file -> (status, code)
    static let expected: [(String, PassStatus, PassError.Code?)] = [
        ("event-ticket.pkpass", .valid, nil),
        ("event-ticket-v2.pkpass", .valid, nil),
        ("boarding-pass.pkpass", .valid, nil),
        ("coupon.pkpass", .valid, nil),
        ("store-card.pkpass", .valid, nil),
        ("generic.pkpass", .valid, nil),
        ("localized.pkpass", .valid, nil),
        ("lenient.pkpass", .valid, nil),
        ("expired-after-signing.pkpass", .valid, nil),
        ("generic-keyid.pkpass", .valid, nil),
        ("coupon-embedded.pkpass", .valid, nil),
        ("store-card-leaf-only.pkpass", .valid, nil),
        ("generic-sha256-manifest.pkpass", .valid, nil),
        ("leaf-without-apple-extensions.pkpass", .valid, nil),
        ("with-ds-store.pkpass", .valid, nil),
        ("bad-not-a-zip.pkpass", .invalid, .notAZip),
        ("bad-too-large.pkpass", .invalid, .tooLarge),
        ("bad-unsafe-archive.pkpass", .invalid, .unsafeArchive),
        ("bad-absolute-path.pkpass", .invalid, .unsafeArchive),
        ("bad-backslash-name.pkpass", .invalid, .unsafeArchive),
        ("bad-nested-folder.pkpass", .invalid, .unsafeArchive),
        ("bad-symlink.pkpass", .invalid, .unsafeArchive),
        ("bad-duplicate-name.pkpass", .invalid, .unsafeArchive),
        ("bad-duplicate-casefold.pkpass", .invalid, .unsafeArchive),
        ("bad-encrypted.pkpass", .invalid, .unsafeArchive),
        ("bad-missing-pass-json.pkpass", .invalid, .missingPassJSON),
        ("bad-missing-manifest.pkpass", .invalid, .missingManifest),
        ("bad-missing-signature.pkpass", .invalid, .missingSignature),
        ("bad-json.pkpass", .invalid, .badJSON),
        ("bad-missing-required-key.pkpass", .invalid, .missingRequiredKey),
        ("bad-no-style.pkpass", .invalid, .missingRequiredKey),
        ("bad-boarding-no-transit-type.pkpass", .invalid, .missingRequiredKey),
        ("bad-unsupported-format-version.pkpass", .invalid, .unsupportedFormatVersion),
        ("bad-manifest-mismatch.pkpass", .invalid, .manifestMismatch),
        ("bad-manifest-lists-missing-file.pkpass", .invalid, .manifestMismatch),
        ("bad-unlisted-file.pkpass", .invalid, .unlistedFile),
        ("bad-macosx-unlisted.pkpass", .invalid, .unlistedFile),
        ("bad-signature-invalid.pkpass", .invalid, .signatureInvalid),
        ("bad-signature-garbage.pkpass", .invalid, .signatureInvalid),
        ("bad-no-signing-time.pkpass", .invalid, .signatureInvalid),
        ("bad-embedded-content-mismatch.pkpass", .invalid, .signatureInvalid),
        ("bad-untrusted-signer.pkpass", .untrusted, .untrustedSigner),
        ("bad-certificate-mismatch.pkpass", .invalid, .certificateMismatch),
        ("bad-team-mismatch.pkpass", .invalid, .certificateMismatch),
        ("bad-certificate-expired.pkpass", .invalid, .certificateExpired),
        ("bad-missing-icon.pkpass", .invalid, .missingIcon),
        ("bad-icon-not-png.pkpass", .invalid, .missingIcon),
    ]

    func testEverySampleGetsTheVerdictItsReadmePromises() {
        for (file, status, code) in Self.expected {
            let verdict = opener.open(TestSupport.sample(file))
            XCTAssertEqual(verdict.status, status, "\(file): \(verdict.error?.description ?? "no error")")
            XCTAssertEqual(verdict.error?.code, code, "\(file): \(verdict.error?.description ?? "no error")")
            if let code {
                if code == .tooLarge {
                    // A tripped limit names itself and the setting that raises it (issue 26 item 5).
                    let message = verdict.error?.message ?? ""
                    XCTAssertTrue(message.hasPrefix("This pass is too large to open safely (over the limit of "), message)
                    XCTAssertTrue(message.hasSuffix(" in the config's [limits] raises it)."), message)
                } else {
                    XCTAssertEqual(verdict.error?.message, PassError.message(for: code), file)
                }
                XCTAssertFalse(verdict.error?.detail.isEmpty ?? true, file)
            }
        }
    }

    /// Every code a pass file can cause; `library-missing` is this computer's, not the file's
    /// (MissingLibraryTests produces it with libzip taken away).
    func testEveryErrorCodeHasASampleThatProducesIt() {
        let produced = Set(Self.expected.compactMap(\.2))
        XCTAssertEqual(produced, Set(PassError.Code.all).subtracting([.libraryMissing]))
    }

    func testReadmeListsExactlyTheSamplesThisTestChecks() throws {
        let readme = try String(contentsOf: TestSupport.samples.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.contains(".pkpass") }
        for row in rows where !row.contains(".pkpasses") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let file = cells[0], status = cells[1], code = cells[2]
            guard let entry = Self.expected.first(where: { $0.0 == file }) else {
                XCTFail("\(file) is in README.md but not checked here")
                continue
            }
            XCTAssertEqual(entry.1.rawValue, status, file)
            XCTAssertEqual(entry.2?.rawValue ?? "-", code, file)
        }
    }

    func testDetailsNameWhatWasWrong() {
        let details: [String: String] = [
            "bad-icon-not-png.pkpass": "no readable PNG image among icon.png",
            "bad-unlisted-file.pkpass": "\"logo.png\" is in the archive but not in manifest.json",
            "bad-missing-icon.pkpass": "no icon.png, icon@2x.png or icon@3x.png",
            "bad-team-mismatch.pkpass": "the certificate belongs to team \"PCTEAM0001\", the pass says \"OTHERTEAM1\"",
            "bad-certificate-expired.pkpass": "signed 2025-03-01 10:00:00 UTC, but the signing certificate (C=US,O=Passconduit Samples,OU=PCTEAM0001,CN=Pass Type ID: pass.org.passconduit.expired,UID=pass.org.passconduit.expired) was valid only from 2024-01-01 to 2024-06-29",
            "bad-no-signing-time.pkpass": "signature has no signing-time attribute (Wallet requires a signing date)",
        ]
        for (file, detail) in details {
            XCTAssertEqual(opener.open(TestSupport.sample(file)).error?.detail, detail, file)
        }
    }

    func testUserMessagesSayWhatItMeansInPlainWords() {
        let expected: [PassError.Code: String] = [
            .manifestMismatch: "This pass was changed after it was issued, so it can't be trusted.",
            .untrustedSigner: "This pass was signed by someone this computer doesn't trust.",
            .notAZip: "This file isn't a pass, or it is damaged.",
            .missingSignature: "This pass isn't signed, so nobody can tell who issued it.",
        ]
        for (code, message) in expected { XCTAssertEqual(PassError.message(for: code), message) }
        for code in PassError.Code.all {
            let message = PassError.message(for: code)
            XCTAssertTrue(message.hasSuffix("."), message)
            for jargon in ["JSON", "manifest", "CMS", "zip", "SHA", "certificate chain", "X.509"] {
                XCTAssertFalse(message.contains(jargon), "\(code): \(message)")
            }
        }
    }
}
