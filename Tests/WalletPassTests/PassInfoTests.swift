import Foundation
import XCTest
@testable import WalletPass
import Support

/// The metadata a conduit shows, read from the generated samples.
final class PassInfoTests: XCTestCase {
    func info(_ file: String, languages: [String] = []) throws -> PassInfo {
        let v = PassOpener(trust: TestSupport.trust, preferredLanguages: languages).open(TestSupport.sample(file))
        XCTAssertEqual(v.status, .valid, v.error?.description ?? "")
        return try XCTUnwrap(v.pass)
    }

    func testEventTicketMetadata() throws {
        let p = try info("event-ticket.pkpass")
        XCTAssertEqual(p.passTypeIdentifier, "pass.org.passconduit.event")
        XCTAssertEqual(p.serialNumber, "EVT-2026-0001")
        XCTAssertEqual(p.teamIdentifier, "PCTEAM0001")
        XCTAssertEqual(p.organizationName, "Passconduit Arena")
        XCTAssertEqual(p.kind, .eventTicket)
        XCTAssertEqual(p.kindName, "Event Ticket")
        XCTAssertEqual(p.relevantDate, PassDate("2037-06-12T19:00+02:00")?.date)
        XCTAssertEqual(p.expirationDate, PassDate("2037-06-13T02:00+02:00")?.date)
        XCTAssertFalse(p.voided)
        XCTAssertEqual(p.backgroundColor, "#3c414c")
        XCTAssertEqual(p.foregroundColor, "#ffffff")
        XCTAssertEqual(p.labelColor, "#c8c8c8")
        XCTAssertEqual(p.barcodes.map(\.formatName), ["QR"])
        XCTAssertEqual(p.barcodes.first?.altText, "EVT-2026-0001")
        XCTAssertTrue(p.canUpdate)
        XCTAssertEqual(p.webServiceURL, "https://passes.example.org/passconduit")
        XCTAssertEqual(p.icon?.file, "icon@3x.png")
        XCTAssertEqual(p.icon?.width, 87)
        XCTAssertEqual(p.icon?.height, 87)
        XCTAssertEqual(p.localizedValue(forFieldKey: "seat"), "Row 12, Seat 7")
        XCTAssertEqual(p.field("seat")?.changeNotice(newValue: "Row 3, Seat 1"), "Your seat is now Row 3, Seat 1.")
        // 20:00 +02:00 shown in this machine's zone, as Wallet shows it on the device.
        let wallClock = DateFormatter()
        wallClock.locale = Locale(identifier: "en_US_POSIX")
        wallClock.timeZone = .current
        wallClock.dateFormat = "d MMM yyyy, HH:mm"
        XCTAssertEqual(p.localizedValue(forFieldKey: "date"), wallClock.string(from: PassDate("2037-06-12T20:00+02:00")!.date))
        XCTAssertEqual(p.localizedValue(forFieldKey: "price"), "49.50 EUR")
        XCTAssertEqual(p.document.locations.first?.relevantText, "Doors open at 19:00.")
        XCTAssertEqual(p.document.semantics?["eventName"]?.string, "The Linux Philharmonic")
        XCTAssertEqual(p.signer?.signingTime, PassDate("2026-03-01T10:00:00Z")?.date)
        XCTAssertEqual(p.signer?.userID, "pass.org.passconduit.event")
        XCTAssertEqual(p.signer?.organizationalUnit, "PCTEAM0001")
        XCTAssertEqual(p.signer?.chain.count, 3)
        XCTAssertEqual(p.signer?.appleAnchor, false)
    }

    func testUpdateHasTheSameIdentitySignedLaterWithChangedFields() throws {
        let v1 = try info("event-ticket.pkpass"), v2 = try info("event-ticket-v2.pkpass")
        XCTAssertEqual(v1.passTypeIdentifier, v2.passTypeIdentifier)
        XCTAssertEqual(v1.serialNumber, v2.serialNumber)
        XCTAssertGreaterThan(try XCTUnwrap(v2.signer?.signingTime), try XCTUnwrap(v1.signer?.signingTime))
        XCTAssertEqual(v2.localizedValue(forFieldKey: "seat"), "Row 3, Seat 1")
    }

    func testBoardingPassMetadata() throws {
        let p = try info("boarding-pass.pkpass")
        XCTAssertEqual(p.kind, .boardingPass)
        XCTAssertEqual(p.kindName, "Boarding Pass")
        XCTAssertEqual(p.transitType, "PKTransitTypeAir")
        XCTAssertEqual(p.relevantDates.first?.startDate?.date, PassDate("2037-07-01T07:00+02:00")?.date)
        XCTAssertEqual(p.relevantDate, PassDate("2037-07-01T07:00+02:00")?.date)
        XCTAssertEqual(p.barcodes.map(\.formatName), ["PDF417", "QR"])
        XCTAssertEqual(p.primaryFields.map(\.value), ["FRA", "LIS"])
        XCTAssertEqual(p.auxiliaryFields.map(\.row), [0, 1])
        XCTAssertFalse(p.canUpdate)
    }

    func testCouponStoreCardAndGenericKinds() throws {
        let coupon = try info("coupon.pkpass")
        XCTAssertEqual(coupon.kindName, "Coupon")
        XCTAssertTrue(coupon.voided)
        XCTAssertEqual(coupon.signer?.digestAlgorithm, "SHA-1")
        let card = try info("store-card.pkpass")
        XCTAssertEqual(card.kindName, "Store Card")
        XCTAssertEqual(card.localizedValue(forFieldKey: "balance"), "21.75 EUR")
        XCTAssertEqual(card.document.associatedStoreIdentifiers, [123456789])
        XCTAssertEqual(card.document.userInfo?["tier"]?.string, "gold")
        XCTAssertEqual(try info("generic.pkpass").kindName, "Pass")
    }

    func testLocalizedPassFollowsThePreferredLanguageThenEnglish() throws {
        let de = try info("localized.pkpass", languages: ["de_DE.UTF-8"])
        XCTAssertEqual(de.language, "de")
        XCTAssertEqual(de.languages, ["de", "en", "fr"])
        XCTAssertEqual(de.organizationName, "Passconduit Bibliothek")
        XCTAssertEqual(de.description, "Bibliotheksausweis")
        XCTAssertEqual(de.logoText, "Bibliothek")
        XCTAssertEqual(de.field("level")?.label, "STUFE")
        XCTAssertEqual(de.field("level")?.changeNotice(newValue: "Platin"), "Deine Stufe ist jetzt Platin.")
        XCTAssertEqual(de.localizedValue(forFieldKey: "note"), "Bitte an der Theke grüßen 📚")
        XCTAssertEqual(de.barcodes.first?.altText, "Mitglied LOC-0001")
        XCTAssertEqual(de.icon?.file, "de.lproj/icon@2x.png")

        let fr = try info("localized.pkpass", languages: ["fr-CA"])
        XCTAssertEqual(fr.organizationName, "Bibliothèque Passconduit")
        XCTAssertEqual(fr.localizedValue(forFieldKey: "note"), "Dites bonjour à l'accueil.")
        XCTAssertEqual(fr.icon?.file, "icon@3x.png")

        let en = try info("localized.pkpass", languages: ["ja"])
        XCTAssertEqual(en.language, "en")
        XCTAssertEqual(en.localizedValue(forFieldKey: "level"), "Gold")
        XCTAssertEqual(en.localizedValue(forFieldKey: "note"), "Say \"hello\"\nat the desk.")
    }

    func testLenientPassJSONStillYieldsItsMetadata() throws {
        let p = try info("lenient.pkpass")
        XCTAssertEqual(p.backgroundColor, "#0a141e")
        XCTAssertEqual(p.foregroundColor, "#ffffff")
        XCTAssertEqual(p.labelColor, "#c86432")
        XCTAssertEqual(p.barcodes.map(\.formatName), ["PDF417"])
        XCTAssertEqual(p.document.unknownKeys, ["someFutureKey"])
        XCTAssertEqual(p.localizedValue(forFieldKey: "name"), "Trailing Comma")
    }

    func testInvalidPassesStillCarryWhatTheirPassJSONSays() {
        let v = PassOpener(trust: TestSupport.trust).open(TestSupport.sample("bad-manifest-mismatch.pkpass"))
        XCTAssertEqual(v.status, .invalid)
        XCTAssertEqual(v.pass?.localizedValue(forFieldKey: "member"), "Mallory Evil")
        XCTAssertNil(PassOpener(trust: TestSupport.trust).open(TestSupport.sample("bad-json.pkpass")).pass)
    }

    func testExpiredAfterSigningIsValidWithANote() {
        let v = PassOpener(trust: TestSupport.trust).open(TestSupport.sample("expired-after-signing.pkpass"))
        XCTAssertEqual(v.status, .valid)
        XCTAssertEqual(v.notes, ["The signing certificate expired on 2025-06-30, after the pass was signed."])
        XCTAssertEqual(v.pass?.signer?.certificateExpired(), true)
        // Opened the day before the certificate expired (the opener's clock is passed in): no note
        let before = PassOpener(trust: TestSupport.trust, now: { Date(timeIntervalSince1970: 1_751_155_200) })
            .open(TestSupport.sample("expired-after-signing.pkpass"))
        XCTAssertEqual(before.status, .valid)
        XCTAssertEqual(before.notes, [])
    }

    func testSha256IsOfTheWholeFile() {
        let bytes = TestSupport.sample("generic.pkpass")
        XCTAssertEqual(PassOpener(trust: TestSupport.trust).open(bytes).sha256, Digest.hex(.sha256, bytes))
        XCTAssertEqual(Digest.hex(.sha256, Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testAppleRulesRefuseALeafWithoutAppleExtensionsOnlyUnderAnAppleAnchor() {
        let plain = TestSupport.sample("leaf-without-apple-extensions.pkpass")
        XCTAssertEqual(PassOpener(trust: TestSupport.trust).open(plain).status, .valid)
        let v = PassOpener(trust: TestSupport.appleRulesTrust).open(plain)
        XCTAssertEqual(v.error?.code, .certificateMismatch)
        XCTAssertTrue(v.error?.detail.contains("1.2.840.113635.100.6.1.16") ?? false)
        let generic = PassOpener(trust: TestSupport.appleRulesTrust).open(TestSupport.sample("generic.pkpass"))
        XCTAssertEqual(generic.status, .valid)
        XCTAssertEqual(generic.pass?.signer?.appleAnchor, true)
    }

    func testBundleMembersAreVerifiedOneByOne() {
        let members = PassOpener(trust: TestSupport.trust).openBundle(TestSupport.sample("bundle.pkpasses"))
        XCTAssertEqual(members.map(\.name), ["event-ticket.pkpass", "boarding-pass.pkpass", "coupon.pkpass"])
        XCTAssertTrue(members.allSatisfy { $0.verdict.status == .valid })
        // Each member carries its own bytes, identical to the pass that went into the bundle.
        XCTAssertEqual(members.map(\.bytes), members.map { TestSupport.sample($0.name ?? "") })
        XCTAssertEqual(members.map(\.verdict.sha256), members.map { Digest.hex(.sha256, TestSupport.sample($0.name ?? "")) })
        let notABundle = PassOpener(trust: TestSupport.trust).openBundle(TestSupport.sample("bad-not-a-zip.pkpass"))
        XCTAssertEqual(notABundle.map(\.name), [nil])
        XCTAssertEqual(notABundle.first?.verdict.error?.code, .notAZip)
        let single = PassOpener(trust: TestSupport.trust).openBundle(TestSupport.sample("generic.pkpass"))
        XCTAssertEqual(single.first?.verdict.error?.code, .missingPassJSON)
    }

    func testOpeningABundleAsAPassSaysItIsABundle() {
        let v = PassOpener(trust: TestSupport.trust).open(TestSupport.sample("bundle.pkpasses"))
        XCTAssertEqual(v.error?.code, .missingPassJSON)
        XCTAssertTrue(v.error?.detail.contains(".pkpasses bundle") ?? false)
    }
}
