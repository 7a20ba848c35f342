import Foundation
import XCTest
@testable import WalletPass

/// Issue 40 item 1, the model: every key of iOS 18-27 has a type (semantics, upcoming events,
/// featured actions, the event guide and airline service links), both spellings are read where
/// Apple renamed a key, unknown keys stay by name, and wrong types give a sentence, never a
/// changed verdict.
final class PassModel2026Tests: XCTestCase {
    func document(_ extra: [String: Any], limit: Int = PassLimits.default.maxUpcomingEntries) throws -> PassDocument {
        var json: [String: Any] = [
            "formatVersion": 1, "passTypeIdentifier": "pass.org.example.test", "serialNumber": "S-1",
            "teamIdentifier": "TEAM123456", "organizationName": "Example Hall", "description": "Season ticket",
            "eventTicket": ["primaryFields": [["key": "event", "label": "Event", "value": "Opening"]]],
        ]
        json.merge(extra) { $1 }
        let bytes = [UInt8](try JSONSerialization.data(withJSONObject: json))
        return try PassDocument.parse(bytes, maxDepth: 64, maxUpcomingEntries: limit).get()
    }

    func fixture(_ name: String) throws -> PassDocument {
        let archive = try PassArchive.open(TestSupport.fixture("pkpass-real/" + name), limits: .default).get()
        return try PassDocument.parse(try XCTUnwrap(archive["pass.json"]), maxDepth: 64).get()
    }

    /// An upcoming entry shaped as Apple documents it (UpcomingPassInformationEntry: type,
    /// identifier, name, isActive, dateInformation, semantics with venuePlaceID, URLs, images,
    /// additionalInfoFields, backFields), with the flag spellings of eventStartDateInfo in a second one.
    func testUpcomingEntriesAreTypedWithTheirDatesVenuesLinksImagesAndFields() throws {
        let d = try document(["upcomingPassInformation": [
            ["type": "event", "identifier": "dnb", "name": "Drum and Bass Night", "isActive": true,
             "dateInformation": ["date": "2026-09-18T21:00:00+01:00", "timeZone": "Europe/London", "isAllDay": false,
                                 "ignoreTimeComponents": true],
             "semantics": ["venueName": "The Warehouse", "venuePlaceID": "IB452E0A3979253B0",
                           "venueLocation": ["latitude": 51.55, "longitude": 0.23],
                           "seats": [["seatNumber": "59", "seatRow": "A", "seatSection": "100", "seatSectionColor": "#FFD700"]],
                           "performerNames": ["Maduk"], "eventType": "PKEventTypeLivePerformance"],
             "URLs": ["merchandiseURL": "https://shop.example/merch", "parkingInformationURL": "https://venue.example/parking",
                      "fanClubURL": "https://fans.example"],
             "images": ["headerImage": ["URLs": [["URL": "https://cdn.example/header@2x.png", "SHA256": "67da1a17", "scale": 2, "size": 40960]]],
                        "venueMap": ["reuseExisting": true]],
             "additionalInfoFields": [["key": "doors", "label": "Doors", "value": "20:00"]],
             "backFields": [["key": "terms", "label": "Terms", "value": "No re-entry"]],
             "auxiliaryStoreIdentifiers": [123456789],
             "futureKey": "kept"],
            ["type": "event", "identifier": "tba", "name": "Secret Show",
             "dateInformation": ["date": "2026-10-01", "unannounced": true, "undetermined": true]],
        ]])
        XCTAssertEqual(d.upcomingPassInformation.count, 2)
        XCTAssertEqual(d.upcomingLeftOut, 0)
        let e = d.upcomingPassInformation[0]
        XCTAssertEqual(e.identifier, "dnb")
        XCTAssertEqual(e.name, "Drum and Bass Night")
        XCTAssertEqual(e.type, "event")
        XCTAssertTrue(e.isActive)
        XCTAssertEqual(e.dateInformation?.date?.text, "2026-09-18T21:00:00+01:00")
        XCTAssertEqual(e.dateInformation?.date?.utcOffset, 3600)
        XCTAssertEqual(e.dateInformation?.timeZone, "Europe/London")
        XCTAssertEqual(e.dateInformation?.ignoresTime, true)
        XCTAssertEqual(e.dateInformation?.showsTime, false)
        XCTAssertEqual(e.semantics?.venueName, "The Warehouse")
        XCTAssertEqual(e.semantics?.venuePlaceID, "IB452E0A3979253B0")
        XCTAssertEqual(e.semantics?.venueLocation?.latitude, 51.55)
        XCTAssertEqual(e.semantics?.seats.first?.number, "59")
        XCTAssertEqual(e.semantics?.seats.first?.sectionColor, PassColor(red: 255, green: 215, blue: 0))
        XCTAssertEqual(e.semantics?.performerNames, ["Maduk"])
        XCTAssertEqual(e.linkList.map(\.key), [.parkingInformationURL, .merchandiseURL])
        XCTAssertEqual(e.other["URLs.fanClubURL"], .string("https://fans.example"), "an unknown URL key stays by name")
        XCTAssertEqual(e.other["futureKey"], .string("kept"))
        XCTAssertEqual(e.headerImage?.sources.first?.url, "https://cdn.example/header@2x.png")
        XCTAssertEqual(e.headerImage?.sources.first?.scale, 2)
        XCTAssertEqual(e.headerImage?.sources.first?.size, 40960)
        XCTAssertEqual(e.venueMap?.reuseExisting, true)
        XCTAssertEqual(e.additionalInfoFields.map(\.value), ["20:00"])
        XCTAssertEqual(e.backFields.map(\.label), ["Terms"])
        XCTAssertEqual(e.auxiliaryStoreIdentifiers, [123456789])
        let tba = d.upcomingPassInformation[1].dateInformation
        XCTAssertEqual(tba?.isUnannounced, true, "eventStartDateInfo's spelling 'unannounced' is read too")
        XCTAssertEqual(tba?.isUndetermined, true)
        XCTAssertNil(d.problem)
        XCTAssertFalse(d.unknownKeys.contains("upcomingPassInformation"))
    }

    func testFeaturedActionsAreTypedAndOnlyHTTPSOnesAreShownTwoAtMost() throws {
        let d = try document(["featuredActions": [
            ["identifier": "js", "type": "shop", "url": "javascript:alert(document.cookie)"],
            ["identifier": "plain", "type": "shop", "url": "http://shop.example/"],
            ["identifier": "benefits", "type": "membershipBenefits", "url": "https://club.example/benefits"],
            ["identifier": "odd", "type": "teleport", "url": "https://club.example/x"],
            ["identifier": "call", "type": "call", "url": "tel:+441234567"],
            ["identifier": "book", "type": "bookStay", "url": "https://hotel.example/"],
            "not an action",
        ]])
        XCTAssertNil(d.problem, "featured actions never change the verdict")
        XCTAssertEqual(d.featuredActions.count, 6)
        XCTAssertEqual(d.featuredActions[2].kind, .membershipBenefits)
        XCTAssertEqual(d.featuredActions[2].kind?.title, "Membership Benefits")
        XCTAssertNil(d.featuredActions[3].kind)
        XCTAssertEqual(FeaturedAction.shown(d.featuredActions).map(\.identifier), ["benefits", "call"])
        XCTAssertEqual(d.featuredActions[0].leftOutReason, "its URL is javascript:, not https:")
        XCTAssertEqual(d.featuredActions[1].leftOutReason, "its URL is http:, not https:")
        XCTAssertTrue(d.warnings.contains("featuredActions[0] is left out: its URL is javascript:, not https:"), "\(d.warnings)")
        XCTAssertTrue(d.warnings.contains("featuredActions[1] is left out: its URL is http:, not https:"), "\(d.warnings)")
        XCTAssertTrue(d.warnings.contains(#"featuredActions[3] is left out: its type "teleport" is not one Wallet knows"#), "\(d.warnings)")
        XCTAssertTrue(d.warnings.contains("featuredActions[6] is a string, not an object; it is ignored"), "\(d.warnings)")
        XCTAssertTrue(d.warnings.contains("featuredActions has 3 actions: Wallet shows the first 2"), "\(d.warnings)")
        XCTAssertFalse(d.warnings.joined().contains("document.cookie"), "a warning never repeats the URL")
        XCTAssertFalse(d.unknownKeys.contains("featuredActions"))
    }

    /// Every link key is typed (trackBagsURL was an unknown key, so the scrubber kept it).
    func testEveryLinkKeyIsTypedTrackBagsURLIncluded() throws {
        var extra: [String: Any] = [:]
        for key in PassLinkKey.allCases { extra[key.rawValue] = "https://issuer.example/" + key.rawValue }
        extra["contactVenueWebsite"] = "http://venue.example/"
        let d = try document(extra)
        XCTAssertEqual(d.linkList.map(\.key), PassLinkKey.allCases)
        XCTAssertEqual(d.links["trackBagsURL"], "https://issuer.example/trackBagsURL")
        XCTAssertEqual(d.unknownKeys, [], "no link key is unknown")
        XCTAssertEqual(PassLinkKey.trackBagsURL.section, .airlineServices)
        XCTAssertEqual(PassLinkKey.contactVenuePhoneNumber.kind, .phone)
        XCTAssertFalse(d.linkList.first { $0.key == .contactVenueWebsite }!.isSafeWebLink, "http: is not shown as a link")
        XCTAssertTrue(d.linkList.first { $0.key == .trackBagsURL }!.isSafeWebLink)
    }

    /// The United semantic boarding pass of the corpus (origin in Fixtures/pkpass-real/MANIFEST.md):
    /// the documentation's `…LocationTimeZone` spelling; Pass Builder's `…AirportTimeZone` reads the same.
    func testBoardingSemanticsReadBothTimeZoneSpellings() throws {
        let united = try fixture("kitinerary__apple-store-UA-sample-unsigned-scrubbed.pkpass")
        let s = try XCTUnwrap(united.semanticTags)
        XCTAssertEqual(s.departureTimeZone, "America/Chicago")
        XCTAssertEqual(s.destinationTimeZone, "Europe/Paris")
        XCTAssertEqual(s.flightNumber, "987", "a flight number written as a number")
        XCTAssertEqual(s.airlineCode, "UA")
        XCTAssertEqual(s.passengerName?.text, "Lani Martinez")
        XCTAssertEqual(s.departureSecurityPrograms, ["PKTransitSecurityProgramTSAPreCheck", "PKTransitSecurityProgramTSAPreCheckTouchlessID"])
        XCTAssertEqual(s.passengerServiceSSRs, ["DEAF"])
        XCTAssertEqual(s.loungePlaceIDs, ["I8EB287C20DBA64AC"])
        XCTAssertEqual(s.internationalDocumentsAreVerified, true)
        XCTAssertEqual(s.originalBoardingDate?.text, "2025-12-09T22:10:00Z")
        XCTAssertEqual(s.departureLocation?.latitude ?? 0, 41.9742, accuracy: 0.0001)
        XCTAssertEqual(united.linkList.count, 15)
        XCTAssertTrue(united.linkList.contains { $0.key == .reportLostBagURL })

        let builder = try document(["semantics": ["departureAirportTimeZone": "America/Chicago",
                                                  "destinationAirportTimeZone": "Europe/Paris",
                                                  "departureAirportSecurityPrograms": ["PKTransitSecurityProgramCLEAR"],
                                                  "airlineLoungePlaceID": "LOUNGE1",
                                                  "passengerName": "MARTINEZ/LANI"]])
        XCTAssertEqual(builder.semanticTags?.departureTimeZone, "America/Chicago")
        XCTAssertEqual(builder.semanticTags?.destinationTimeZone, "Europe/Paris")
        XCTAssertEqual(builder.semanticTags?.departureSecurityPrograms, ["PKTransitSecurityProgramCLEAR"])
        XCTAssertEqual(builder.semanticTags?.loungePlaceIDs, ["LOUNGE1"])
        XCTAssertEqual(builder.semanticTags?.passengerName?.text, "MARTINEZ/LANI")
    }

    /// The KDE poster event ticket of the corpus (an Apple user pass): eventStartDateInfo,
    /// seats with seatAisle, admissionLevel, logoSymbolName.
    func testPosterEventSemanticsOfTheAppleUserPass() throws {
        let d = try fixture("kitinerary__apple-semantic-event-ticket-scrubbed.pkpass")
        let s = try XCTUnwrap(d.semanticTags)
        XCTAssertEqual(s.eventStartDateInfo?.date?.text, "2026-06-12T20:00+02:00")
        XCTAssertEqual(s.eventStartDateInfo?.showsTime, true)
        XCTAssertEqual(s.eventEndDate?.text, "2026-06-13T20:00+02:00")
        XCTAssertEqual(s.seats.count, 1)
        XCTAssertEqual(s.seats.first?.aisle, "0")
        XCTAssertEqual(s.seats.first?.level, "000")
        XCTAssertEqual(s.admissionLevel, "Text")
        XCTAssertEqual(s.performerNames, [])
        XCTAssertEqual(s.venueName, "Event Location Name")
        XCTAssertEqual(s.other, [:], "every tag of this pass is typed")
        XCTAssertEqual(d.logoSymbolName, "ticket.circle.fill")
        XCTAssertEqual(d.unknownKeys, [])
        XCTAssertEqual(d.preferredStyleSchemes, ["posterEventTicket"])
    }

    /// Semantics of the wrong type: a string where Apple wants an object, a string where it wants
    /// a list, a number where it wants a date. Each is left out with a sentence; the pass reads.
    func testSemanticsOfTheWrongTypeAreIgnoredWithASentence() throws {
        let d = try document(["semantics": "Ada Lovelace"])
        XCTAssertNil(d.semanticTags)
        XCTAssertEqual(d.semantics, .string("Ada Lovelace"), "the raw value is still kept")
        XCTAssertTrue(d.warnings.contains("semantics is a string, not an object; it is ignored"), "\(d.warnings)")
        XCTAssertNil(d.problem)

        let mixed = try document(["semantics": ["seats": "A12", "eventStartDate": 20260612, "venueLocation": "here",
                                                "eventStartDateInfo": ["date": "soon"], "eventName": ["a"],
                                                "passengerName": 7, "homeTeamAbbreviation": "HOM"],
                                  "upcomingPassInformation": "tomorrow", "featuredActions": ["url": "https://x.example"]])
        let s = try XCTUnwrap(mixed.semanticTags)
        XCTAssertEqual(s.seats, [])
        XCTAssertNil(s.eventStartDate)
        XCTAssertNil(s.venueLocation)
        XCTAssertNil(s.eventStartDateInfo?.date)
        XCTAssertNil(s.eventName)
        XCTAssertNil(s.passengerName)
        XCTAssertEqual(s.homeTeamAbbreviation, "HOM", "the rest still reads")
        for sentence in ["semantics.seats is a string, not a list; it is ignored",
                         "semantics.eventStartDate is a number, not a date; it is ignored",
                         "semantics.venueLocation is a string, not an object; it is ignored",
                         "semantics.eventStartDateInfo.date is not a date Wallet reads: soon",
                         "semantics.eventName is a list, not text; it is ignored",
                         "semantics.passengerName is a number, not a name; it is ignored",
                         "upcomingPassInformation is a string, not a list; it is ignored",
                         "featuredActions is an object, not a list; it is ignored"] {
            XCTAssertTrue(mixed.warnings.contains(sentence), "missing \(sentence.debugDescription) in \(mixed.warnings)")
        }
        XCTAssertEqual(mixed.upcomingPassInformation, [])
        XCTAssertEqual(mixed.featuredActions, [])
        XCTAssertNil(mixed.problem)
    }

    /// 1 000 upcoming entries: the first 100 (PassLimits.maxUpcomingEntries) are typed, the rest
    /// counted and said, in bounded time.
    func testAThousandUpcomingEntriesAreBoundedAndCounted() throws {
        let many: [[String: Any]] = (0..<1_000).map { ["type": "event", "identifier": "e\($0)", "name": "Game \($0)",
                                                       "dateInformation": ["date": "2027-01-01T19:00:00Z"]] }
        let started = Date()
        let d = try document(["upcomingPassInformation": many])
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertEqual(d.upcomingPassInformation.count, 100)
        XCTAssertEqual(d.upcomingPassInformation.last?.name, "Game 99")
        XCTAssertEqual(d.upcomingLeftOut, 900)
        XCTAssertTrue(d.warnings.contains("upcomingPassInformation has 1000 entries: the first 100 are read, 900 left out"), "\(d.warnings)")
        XCTAssertNil(d.problem)
        XCTAssertEqual(try document(["upcomingPassInformation": many], limit: 5).upcomingPassInformation.count, 5)
    }

    /// relevantDates entries in both spellings: iOS 18's `relevantDate` and iOS 26's `date`, and intervals.
    func testRelevantDatesReadBothEntrySpellingsAndIntervals() throws {
        let d = try document(["relevantDates": [
            ["relevantDate": "2026-06-12T19:00:00+02:00"],
            ["date": "2026-06-13T19:00:00+02:00"],
            ["startDate": "2026-06-14T18:00:00+02:00", "endDate": "2026-06-14T23:00:00+02:00"],
            ["date": "not a date"], "not an entry",
        ]])
        XCTAssertEqual(d.relevantDates.map { $0.date?.text }, ["2026-06-12T19:00:00+02:00", "2026-06-13T19:00:00+02:00", nil])
        XCTAssertEqual(d.relevantDates.last?.startDate?.text, "2026-06-14T18:00:00+02:00")
        XCTAssertEqual(d.relevantDates.last?.endDate?.text, "2026-06-14T23:00:00+02:00")
    }

    /// A poster generic pass beside its classic fallback: both styles' fields are in the model,
    /// footerFields included; the drawn style stays the classic one.
    func testEveryStyleDictionaryIsTypedFooterFieldsIncluded() throws {
        let d = try document(["posterGeneric": [
            "primaryFields": [["key": "member", "value": "Ada Lovelace"]],
            "footerFields": [["key": "since", "label": "SINCE", "value": "2019"], ["key": "tier", "value": "Gold"]],
        ]])
        XCTAssertEqual(d.kind, .eventTicket)
        XCTAssertEqual(d.styles, [.eventTicket, .posterGeneric])
        XCTAssertEqual(d.fields, d.fieldsByStyle[.eventTicket])
        let poster = try XCTUnwrap(d.fieldsByStyle[.posterGeneric])
        XCTAssertEqual(poster.footerFields.map(\.value), ["2019", "Gold"])
        XCTAssertEqual(poster.auxiliaryFields.map(\.value), ["2019"], "the first footer field is drawn where the auxiliary row is")
        XCTAssertEqual(poster.primaryFields.map(\.value), ["Ada Lovelace"])
    }
}
