import Foundation
import XCTest
@testable import WalletPass

/// Every pass in corpus/pkpass-real (copied to Fixtures/pkpass-real, origins in its MANIFEST.md)
/// opens with the verdict its MANIFEST.md implies: verified at the signing time ⇒ valid (with a
/// note that the certificate has expired since); hash mismatch ⇒ manifest-mismatch; stripped ⇒
/// missing-signature; files outside the manifest ⇒ unlisted-file; signature that does not verify ⇒
/// signature-invalid.
final class RealPassTests: XCTestCase {
    let opener = PassOpener(trust: TestSupport.trust)

    static let valid = [
        "BusinessWallet__StoreCard", "BusinessWallet__app-StoreCard", "DB8-TestPass__Lollipop", "JohannBernard__CarteTP",
        "JohannBernard__StoreCard", "Kryst0r-Wallet__BoardingPass", "NSCoconut__BoardingPass",
        "PkpassViewer__air_tiket_pass", "PkpassViewer__brand_card1", "PkpassViewer__brand_card2", "PkpassViewer__coupon",
        "PkpassViewer__eventticket", "Te.Ticket__Event", "edutap__apple_passes-BoardingPass", "edutap__apple_passes-Coupon",
        "edutap__apple_passes-Event", "edutap__apple_passes-Generic", "edutap__apple_passes-StoreCard",
        "edutap__generated-basic_pass", "edutap__generated-eventticket", "edutap__generated-loyaltypass_nfc", "edutap__pass",
        "edutap__resources-basic_pass", "fragallegos__Coupon", "greedbell__Coupon", "hkwid-lufthansa__Coupon",
        "laravel-mobile-pass__PkPassReader-valid", "laravel-mobile-pass__test", "mithrasvs__Sample", "mithrasvs__sample",
        "passbook.js__Lollipop", "passbook.js__bin-Lollipop", "pavick__sample", "php-passbook__demo-event",
        "pkpassvalidator__good", "ueman-passkit__cinema", "ueman-passkit__coffee_club", "ueman-passkit__example-coupon",
    ]

    static let invalid: [(String, PassError.Code)] = [
        // Cryptographically valid, but the leaf's Apple pass-type extension holds "Le Rendez Vous":
        // Apple's Passbook policy refuses it (MANIFEST.md caveat).
        ("pkpassvalidator__bad", .certificateMismatch),
        ("catima__DCBLN24-QLUKT-1-passbook", .signatureInvalid),
        ("catima__Eurowings", .signatureInvalid),
        ("dotnet-passbook__sample-web-pass", .signatureInvalid),  // no signer certificate in the CMS
        ("catima__Eurowings_fake_empty_gh2317", .manifestMismatch),
        ("catima__Eurowings_fake_no_barcode_gh2503", .manifestMismatch),
        ("catima__resources-Eurowings", .manifestMismatch),
        ("ueman-passkit__BoardingPass_unsigned", .manifestMismatch),
        ("ueman-passkit__generic_with_invalid_checksum", .manifestMismatch),
        ("ueman-passkit__generic_with_missing_checksum", .manifestMismatch),
        ("passandroid__westbahn-special", .manifestMismatch),  // manifest lists icon.png, the zip lacks it
        ("catima__Pass-Example-Generic", .unlistedFile),  // __MACOSX/ entries outside the manifest
        ("passandroid__broken-fail", .notAZip),
        // Has a 4-byte placeholder `signature` but no manifest.json (MANIFEST.md groups it with the stripped ones).
        ("ql-pkpass__Skyline-BoardingPass", .missingManifest),
    ] + [
        "edutap__unsigned-1234", "itinerary__boardingpass-v1", "itinerary__boardingpass-v2", "itinerary__generic-pass",
        "itinerary__updateable-boardingpass", "kitinerary__airbaltic", "kitinerary__airberlin",
        "kitinerary__apple-semantic-event-ticket-scrubbed", "kitinerary__apple-store-UA-sample-unsigned-scrubbed",
        "kitinerary__cleartrip", "kitinerary__eurowings", "kitinerary__lufthansa-with-timezone", "kitinerary__lufthansa",
        "kitinerary__motel-one-synthetic", "kitinerary__swiss", "kpkpass__apple-store-UA-sample-unsigned-scrubbed",
        "kpkpass__boardingpass-old", "kpkpass__boardingpass-v1", "kpkpass__boardingpass-v2", "pkpass-to-pdf__sample-event",
    ].map { ($0, PassError.Code.missingSignature) }

    func open(_ name: String) -> PassVerdict {
        opener.open(TestSupport.fixture("pkpass-real/\(name).pkpass"))
    }

    func testSignedRealPassesVerifyAtTheirSigningTimeAndNoteTheExpiredCertificate() {
        for name in Self.valid {
            let v = open(name)
            XCTAssertEqual(v.status, .valid, "\(name): \(v.error?.description ?? "")")
            XCTAssertNil(v.error, name)
            XCTAssertEqual(v.pass?.signer?.appleAnchor, true, name)
            XCTAssertNotNil(v.pass?.signer?.signingTime, name)
            XCTAssertTrue(v.notes.contains { $0.hasPrefix("The signing certificate expired on ") }, "\(name): \(v.notes)")
        }
    }

    func testBrokenRealPassesGetTheErrorTheirManifestEntryImplies() {
        for (name, code) in Self.invalid {
            let v = open(name)
            XCTAssertEqual(v.status, .invalid, name)
            XCTAssertEqual(v.error?.code, code, "\(name): \(v.error?.description ?? "valid")")
        }
    }

    func testEveryRealPassIsCheckedByThisTest() throws {
        let dir = TestSupport.fixtures.appendingPathComponent("pkpass-real")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".pkpass") }
        let checked = Set(Self.valid + Self.invalid.map(\.0))
        XCTAssertEqual(Set(files.map { String($0.dropLast(".pkpass".count)) }), checked)
        XCTAssertEqual(Self.valid.count + Self.invalid.count, 72)
    }

    func testPassesEmbeddingOnlyTheLeafAreCompletedFromTheShippedIntermediates() {
        for name in ["Kryst0r-Wallet__BoardingPass", "passbook.js__Lollipop"] {
            XCTAssertEqual(open(name).pass?.signer?.chain.count, 3, name)
        }
    }

    func testOldPassesChainThroughTheWWDRCertificateValidWhenTheySigned() {
        // Signed in 2013 under the 2008-2016 WWDR certificate; the 2013-2023 one shares its key.
        let v = open("fragallegos__Coupon")
        XCTAssertEqual(v.status, .valid)
        XCTAssertEqual(v.pass?.signer?.chain.last, "CN=Apple Root CA,OU=Apple Certification Authority,O=Apple Inc.,C=US")
    }

    func testSubjectKeyIdentifierSignerAndMacZipQuirksStillVerify() {
        // CMS v3 signer by key id, and local headers carrying sizes beside data descriptors.
        let v = open("ueman-passkit__cinema")
        XCTAssertEqual(v.status, .valid)
        XCTAssertEqual(v.pass?.organizationName, "Cinema-Arthouse Osnabrück")
    }

    func testWithoutTheShippedAnchorsARealPassIsUntrustedNotInvalid() throws {
        let onlyTest = try TrustStore.load(directories: [TestSupport.sampleTrust])
        let v = PassOpener(trust: onlyTest).open(TestSupport.fixture("pkpass-real/pkpassvalidator__good.pkpass"))
        XCTAssertEqual(v.status, .untrusted)
        XCTAssertEqual(v.error?.code, .untrustedSigner)
        XCTAssertEqual(v.pass?.organizationName, "Le rendez vous")
    }

    func testBundlesOpenEachMemberOnItsOwn() {
        let lufthansa = opener.openBundle(TestSupport.fixture("pkpass-real/kitinerary__lufthansa.pkpasses"))
        XCTAssertEqual(lufthansa.map(\.name), ["lufthansa.pkpass", "lufthansa-with-timezone.pkpass"])
        XCTAssertEqual(lufthansa.map(\.verdict.error?.code), [.missingSignature, .missingSignature])
        XCTAssertEqual(lufthansa.first?.verdict.pass?.organizationName, "Lufthansa")
        let eurowings = opener.openBundle(TestSupport.fixture("pkpass-real/catima__Eurowings.pkpasses"))
        XCTAssertEqual(eurowings.count, 2)
        XCTAssertTrue(eurowings.allSatisfy { $0.verdict.error?.code == .signatureInvalid })
    }

    func testUTF16LittleEndianStringsOfARealAirlinePassAreRead() {
        let v = open("Kryst0r-Wallet__BoardingPass")
        XCTAssertEqual(v.pass?.language, "en")
        XCTAssertEqual(v.pass?.organizationName, "SATA")
    }

    func testTrailingCommasInApplesOwnSampleAreAccepted() throws {
        // edutap's copy of Apple's sample BoardingPass (signed by pass.com.apple.devpubs.example)
        // and three other signed passes have trailing commas in pass.json (Python's json refuses them).
        for name in ["edutap__apple_passes-BoardingPass", "NSCoconut__BoardingPass", "JohannBernard__CarteTP",
                     "JohannBernard__StoreCard"] {
            let json = try XCTUnwrap(PassArchive.open(TestSupport.fixture("pkpass-real/\(name).pkpass"),
                                                      limits: .default).get()["pass.json"])
            let text = String(decoding: json, as: UTF8.self).filter { !$0.isWhitespace }
            XCTAssertTrue(text.contains(",}") || text.contains(",]"), name)
            XCTAssertEqual(open(name).status, .valid, name)
        }
    }
}
