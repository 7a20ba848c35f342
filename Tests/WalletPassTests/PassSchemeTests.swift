import Foundation
import XCTest
@testable import WalletPass

/// Issue 40 item 1, the scheme: `preferredStyleSchemes` is honoured only when the pass meets
/// Apple's documented requirements for the scheme, else the classic style is drawn and the reason
/// names the first missing (or wrong-typed) required key; `posterGeneric` wins over classic styles.
final class PassSchemeTests: XCTestCase {
    static var posterSemantics: [String: Any] { [
        "eventName": "Spring Gala", "venueName": "Royal Hall", "venueRegionName": "London",
        "venueRoom": "Main Auditorium", "eventType": "PKEventTypeGeneric",
        "eventStartDate": "2026-05-01T19:30:00+01:00",
    ] }
    static var flightSemantics: [String: Any] { [
        "airlineCode": "UA", "flightNumber": 987, "departureAirportCode": "ORD", "departureCityName": "Chicago",
        "departureLocationTimeZone": "America/Chicago", "destinationAirportCode": "CDG", "destinationCityName": "Paris",
        "destinationLocationTimeZone": "Europe/Paris", "originalArrivalDate": "2025-12-10T07:01:00Z",
        "originalBoardingDate": "2025-12-09T22:10:00Z", "originalDepartureDate": "2025-12-09T23:00:00Z",
        "passengerName": ["givenName": "Lani", "familyName": "Martinez"],
    ] }
    static let art = ["artwork@2x.png", "icon.png", "logo.png"]

    func document(_ extra: [String: Any], style: String = "eventTicket", remove: [String] = []) throws -> PassDocument {
        var json: [String: Any] = [
            "formatVersion": 1, "passTypeIdentifier": "pass.org.example.test", "serialNumber": "S-1",
            "teamIdentifier": "TEAM123456", "organizationName": "Example Hall", "description": "Ticket",
            style: style == "boardingPass" ? ["transitType": "PKTransitTypeAir"] as [String: Any] : [:],
        ]
        json.merge(extra) { $1 }
        for key in remove { json.removeValue(forKey: key) }
        let bytes = [UInt8](try JSONSerialization.data(withJSONObject: json))
        return try PassDocument.parse(bytes, maxDepth: 64).get()
    }

    func poster(_ semantics: Any?, images: [String] = art, schemes: [String] = ["posterEventTicket", "eventTicket"]) throws -> SchemeChoice {
        var extra: [String: Any] = ["preferredStyleSchemes": schemes]
        if let semantics { extra["semantics"] = semantics }
        return try document(extra).scheme(imageNames: images)
    }

    func semantics(_ base: [String: Any], without key: String? = nil, with more: [String: Any] = [:]) -> [String: Any] {
        var s = base
        if let key { s.removeValue(forKey: key) }
        s.merge(more) { $1 }
        return s
    }

    func testPosterEventTicketWhenEveryRequiredKeyAndTheArtworkArePresent() throws {
        let c = try poster(Self.posterSemantics)
        XCTAssertEqual(c, SchemeChoice(scheme: .posterEventTicket))
        XCTAssertEqual(c.text, "poster event ticket")
        XCTAssertEqual(try poster(Self.posterSemantics, images: ["de.lproj/background@3x.png"]).scheme, .posterEventTicket,
                       "a background image will do, localized too")
    }

    func testEachMissingRequiredEventKeyFallsBackToTheClassicTicketNamingIt() throws {
        for key in ["eventName", "venueName", "venueRegionName", "venueRoom"] {
            let c = try poster(semantics(Self.posterSemantics, without: key))
            XCTAssertEqual(c.scheme, .eventTicket, key)
            XCTAssertEqual(c.declined, .posterEventTicket)
            XCTAssertEqual(c.fallbackReason, "semantics.\(key) is missing")
        }
        XCTAssertEqual(try poster(semantics(Self.posterSemantics, without: "venueName")).text,
                       "event ticket (poster layout not used: semantics.venueName is missing)")
        XCTAssertEqual(try poster(semantics(Self.posterSemantics, with: ["venueRoom": "  "])).fallbackReason,
                       "semantics.venueRoom is empty")
    }

    func testTheStartDateIsRecommendedNotRequired() throws {
        XCTAssertEqual(try poster(semantics(Self.posterSemantics, without: "eventStartDate")).scheme, .posterEventTicket)
    }

    func testSportsNeedBothTeamAbbreviationsAndLivePerformancesTheirPerformers() throws {
        let sports = semantics(Self.posterSemantics, with: ["eventType": "PKEventTypeSports",
                                                            "homeTeamAbbreviation": "LAL", "awayTeamAbbreviation": "BOS"])
        XCTAssertEqual(try poster(sports).scheme, .posterEventTicket)
        XCTAssertEqual(try poster(semantics(sports, without: "awayTeamAbbreviation")).fallbackReason,
                       "semantics.awayTeamAbbreviation is missing")
        XCTAssertEqual(try poster(semantics(sports, without: "homeTeamAbbreviation")).fallbackReason,
                       "semantics.homeTeamAbbreviation is missing")
        let live = semantics(Self.posterSemantics, with: ["eventType": "PKEventTypeLivePerformance", "performerNames": ["Maduk"]])
        XCTAssertEqual(try poster(live).scheme, .posterEventTicket)
        XCTAssertEqual(try poster(semantics(live, without: "performerNames")).fallbackReason, "semantics.performerNames is missing")
        XCTAssertEqual(try poster(semantics(live, with: ["performerNames": [String]()])).fallbackReason, "semantics.performerNames is empty")
        XCTAssertEqual(try poster(semantics(live, with: ["performerNames": 7])).fallbackReason,
                       "semantics.performerNames is a number, not a list")
    }

    func testNoArtworkOrBackgroundImageFallsBack() throws {
        let c = try poster(Self.posterSemantics, images: ["icon.png", "logo@2x.png", "strip@2x.png", "artworks.png"])
        XCTAssertEqual(c.scheme, .eventTicket)
        XCTAssertEqual(c.fallbackReason, "the pass has no artwork or background image")
    }

    func testSemanticsOfTheWrongTypeFallBackWithTheirType() throws {
        XCTAssertEqual(try poster("Spring Gala").fallbackReason, "semantics is a string, not an object")
        XCTAssertEqual(try poster([Self.posterSemantics]).fallbackReason, "semantics is a list, not an object")
        XCTAssertEqual(try poster(nil).fallbackReason, "semantics is missing")
        XCTAssertEqual(try poster(semantics(Self.posterSemantics, with: ["venueName": ["name": "Royal Hall"]])).fallbackReason,
                       "semantics.venueName is an object, not text")
        let d = try document(["preferredStyleSchemes": ["posterEventTicket"], "semantics": "Spring Gala"])
        XCTAssertNil(d.problem, "a scheme never changes the verdict")
    }

    func testWithoutPreferredSchemesOrWithTheClassicFirstTheClassicStyleIsDrawnWithoutAReason() throws {
        XCTAssertEqual(try poster(Self.posterSemantics, schemes: []), SchemeChoice(scheme: .eventTicket))
        XCTAssertEqual(try poster(Self.posterSemantics, schemes: ["eventTicket", "posterEventTicket"]), SchemeChoice(scheme: .eventTicket))
        XCTAssertEqual(try poster(Self.posterSemantics, schemes: ["futureScheme", "posterEventTicket"]).scheme, .posterEventTicket,
                       "an unknown scheme name is skipped")
    }

    func testAPosterSchemeOnAnotherStyleIsNotUsed() throws {
        let d = try document(["preferredStyleSchemes": ["posterEventTicket", "semanticBoardingPass"],
                              "semantics": Self.posterSemantics], style: "generic")
        let c = d.scheme(imageNames: Self.art)
        XCTAssertEqual(c.scheme, .generic)
        XCTAssertEqual(c.declined, .posterEventTicket)
        XCTAssertEqual(c.fallbackReason, "the pass's style is generic, not eventTicket")
    }

    func boarding(_ semantics: Any?, transit: String = "PKTransitTypeAir") throws -> SchemeChoice {
        var extra: [String: Any] = ["preferredStyleSchemes": ["semanticBoardingPass", "boardingPass"],
                                    "boardingPass": ["transitType": transit]]
        if let semantics { extra["semantics"] = semantics }
        return try document(extra, style: "boardingPass").scheme(imageNames: [])
    }

    func testSemanticBoardingPassWithEveryRequiredFlightKey() throws {
        XCTAssertEqual(try boarding(Self.flightSemantics), SchemeChoice(scheme: .semanticBoardingPass))
        let builder = semantics(Self.flightSemantics, without: "departureLocationTimeZone",
                                with: ["departureAirportTimeZone": "America/Chicago"])
        XCTAssertEqual(try boarding(builder).scheme, .semanticBoardingPass, "Pass Builder's spelling of the time zone")
        XCTAssertEqual(try boarding(semantics(Self.flightSemantics, with: ["passengerName": "Lani Martinez"])).scheme,
                       .semanticBoardingPass, "a plain-string name")
    }

    func testEachMissingFlightKeyFallsBackToTheClassicBoardingPass() throws {
        for key in Self.flightSemantics.keys.sorted() {
            let c = try boarding(semantics(Self.flightSemantics, without: key))
            XCTAssertEqual(c.scheme, .boardingPass, key)
            XCTAssertEqual(c.fallbackReason, "semantics.\(key) is missing")
        }
        XCTAssertEqual(try boarding(semantics(Self.flightSemantics, without: "airlineCode")).text,
                       "boarding pass (semantic layout not used: semantics.airlineCode is missing)")
        XCTAssertEqual(try boarding(semantics(Self.flightSemantics, with: ["passengerName": 42])).fallbackReason,
                       "semantics.passengerName is a number, not a name")
        XCTAssertEqual(try boarding(semantics(Self.flightSemantics, with: ["flightNumber": true])).fallbackReason,
                       "semantics.flightNumber is a boolean, not text")
        XCTAssertEqual(try boarding(["airlineCode", "UA"]).fallbackReason, "semantics is a list, not an object")
        XCTAssertEqual(try boarding(Self.flightSemantics, transit: "PKTransitTypeTrain").fallbackReason,
                       "boardingPass.transitType is PKTransitTypeTrain, not PKTransitTypeAir")
    }

    /// Apple types the required event tags as strings and `performerNames` as a list of strings:
    /// a number where Apple wants text, a performer that is not text, or a blank written with line
    /// breaks is not the tag, and Wallet draws the classic ticket. Never a changed verdict.
    func testRequiredEventTagsMustBeTextAsAppleTypesThem() throws {
        for key in ["eventName", "venueName", "venueRegionName", "venueRoom"] {
            let c = try poster(semantics(Self.posterSemantics, with: [key: 42]))
            XCTAssertEqual(c.scheme, .eventTicket, key)
            XCTAssertEqual(c.fallbackReason, "semantics.\(key) is a number, not text")
        }
        XCTAssertEqual(try poster(semantics(Self.posterSemantics, with: ["venueRoom": "\n\t "])).fallbackReason,
                       "semantics.venueRoom is empty")
        let sports = semantics(Self.posterSemantics, with: ["eventType": "PKEventTypeSports",
                                                            "homeTeamAbbreviation": "LAL", "awayTeamAbbreviation": 7])
        XCTAssertEqual(try poster(sports).text,
                       "event ticket (poster layout not used: semantics.awayTeamAbbreviation is a number, not text)")
        let live = semantics(Self.posterSemantics, with: ["eventType": "PKEventTypeLivePerformance"])
        XCTAssertEqual(try poster(semantics(live, with: ["performerNames": ["Maduk", 3]])).fallbackReason,
                       "semantics.performerNames[1] is a number, not text")
        XCTAssertEqual(try poster(semantics(live, with: ["performerNames": [["name": "Maduk"]]])).fallbackReason,
                       "semantics.performerNames[0] is an object, not text")
        XCTAssertEqual(try poster(semantics(live, with: ["performerNames": "Maduk"])).fallbackReason,
                       "semantics.performerNames is a string, not a list")
        XCTAssertEqual(try poster(semantics(live, with: ["performerNames": [" ", "\n"]])).fallbackReason,
                       "semantics.performerNames is empty")
        XCTAssertEqual(try poster(semantics(live, with: ["performerNames": ["", "Maduk"]])).scheme, .posterEventTicket,
                       "one named performer will do")
        let d = try document(["preferredStyleSchemes": ["posterEventTicket"], "semantics": semantics(Self.posterSemantics, with: ["venueRoom": 42])])
        XCTAssertNil(d.problem, "a scheme never changes the verdict")
    }

    /// The semantic boarding pass's scheduled times must be dates Wallet reads, its codes and
    /// names text; the flight number may be Apple's number or text.
    func testFlightTagsMustHaveAppleTypes() throws {
        XCTAssertEqual(try boarding(semantics(Self.flightSemantics, with: ["flightNumber": "987"])).scheme, .semanticBoardingPass)
        for key in ["originalArrivalDate", "originalBoardingDate", "originalDepartureDate"] {
            XCTAssertEqual(try boarding(semantics(Self.flightSemantics, with: [key: "tomorrow evening"])).fallbackReason,
                           "semantics.\(key) is not a date Wallet reads", key)
            XCTAssertEqual(try boarding(semantics(Self.flightSemantics, with: [key: 1_765_318_200])).fallbackReason,
                           "semantics.\(key) is a number, not a date", key)
        }
        XCTAssertEqual(try boarding(semantics(Self.flightSemantics, with: ["departureAirportCode": 123])).fallbackReason,
                       "semantics.departureAirportCode is a number, not text")
        XCTAssertEqual(try boarding(semantics(Self.flightSemantics, without: "destinationLocationTimeZone",
                                              with: ["destinationAirportTimeZone": ["id": "Europe/Paris"]])).fallbackReason,
                       "semantics.destinationLocationTimeZone is an object, not text")
        XCTAssertEqual(try boarding(semantics(Self.flightSemantics, with: ["originalBoardingDate": "2025-12-09T22:10+01:00"])).scheme,
                       .semanticBoardingPass, "a date in the short form passes write")
    }

    func testPosterGenericIsPreferredOverTheClassicFallbackStyle() throws {
        var json: [String: Any] = ["generic": ["primaryFields": [["key": "m", "value": "Member"]]],
                                   "posterGeneric": ["primaryFields": [["key": "m", "value": "Member"]]]]
        XCTAssertEqual(try document(json).scheme(imageNames: ["background.png"]), SchemeChoice(scheme: .posterGeneric))
        json["preferredStyleSchemes"] = ["posterEventTicket"]
        XCTAssertEqual(try document(json, remove: ["eventTicket"]).scheme(imageNames: []).scheme, .posterGeneric)
        let only = try document(["posterGeneric": [:] as [String: Any]], remove: ["eventTicket"])
        XCTAssertEqual(only.scheme(imageNames: []).scheme, .posterGeneric)
        XCTAssertEqual(SchemeChoice(scheme: .posterGeneric).text, "poster generic pass")
    }

    /// Real passes: the United sample is a semantic boarding pass; Apple's own user-made ticket
    /// lacks the documented venueRegionName, so the classic event ticket is drawn and says why.
    func testRealPasses() throws {
        func fixture(_ name: String) throws -> (PassDocument, [String]) {
            let archive = try PassArchive.open(TestSupport.fixture("pkpass-real/" + name), limits: .default).get()
            let d = try PassDocument.parse(try XCTUnwrap(archive["pass.json"]), maxDepth: 64).get()
            return (d, archive.names)
        }
        let (united, unitedFiles) = try fixture("kitinerary__apple-store-UA-sample-unsigned-scrubbed.pkpass")
        XCTAssertEqual(united.scheme(imageNames: unitedFiles), SchemeChoice(scheme: .semanticBoardingPass))
        let (apple, appleFiles) = try fixture("kitinerary__apple-semantic-event-ticket-scrubbed.pkpass")
        XCTAssertEqual(apple.scheme(imageNames: appleFiles).text,
                       "event ticket (poster layout not used: semantics.venueRegionName is missing)")
    }
}
