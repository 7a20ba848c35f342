/// A pass's semantic tags (`semantics`, and an upcoming entry's) as typed values: the keys poster
/// event tickets (iOS 18) and semantic boarding passes (iOS 26) are drawn and judged from, and the
/// keys the calendar reads. Every other tag stays by name in `other`, as written. Where Apple
/// spells a key two ways, both are read: the documentation's `departureLocationTimeZone` and Pass
/// Builder's `departureAirportTimeZone` (the same for destination and the security programs),
/// `loungePlaceIDs` and the WWDC25 session's `airlineLoungePlaceID`.
///
/// A tag of the wrong type (a number where a list is wanted) is left out with a warning; the
/// pass's verdict never depends on semantics.
package struct PassSemantics: Sendable, Equatable {
    // Event (iOS 12, 18)
    package var eventName: String?
    /// `PKEventTypeGeneric`, `PKEventTypeSports`, `PKEventTypeLivePerformance`, …
    package var eventType: String?
    package var eventStartDate: PassDate?
    package var eventEndDate: PassDate?
    package var eventStartDateInfo: PassEventDate?
    package var eventLiveMessage: String?
    package var entranceDescription: String?
    package var venueName: String?
    package var venueRoom: String?
    package var venueRegionName: String?
    package var venueFullAddress: String?
    package var venuePhoneNumber: String?
    package var venuePlaceID: String?
    package var venueEntrance: String?
    package var venueEntranceGate: String?
    package var venueEntranceDoor: String?
    package var venueEntrancePortal: String?
    package var venueLocation: PassCoordinate?
    package var venueOpenDate: PassDate?
    package var venueCloseDate: PassDate?
    package var venueGatesOpenDate: PassDate?
    package var venueDoorsOpenDate: PassDate?
    package var venueParkingLotsOpenDate: PassDate?
    package var venueBoxOfficeOpenDate: PassDate?
    package var venueFanZoneOpenDate: PassDate?
    package var admissionLevel: String?
    package var admissionLevelAbbreviation: String?
    package var attendeeName: String?
    package var performerNames: [String]
    package var homeTeamName: String?
    package var homeTeamAbbreviation: String?
    package var homeTeamLocation: String?
    package var awayTeamName: String?
    package var awayTeamAbbreviation: String?
    package var awayTeamLocation: String?
    package var leagueName: String?
    package var leagueAbbreviation: String?
    package var sportName: String?
    package var tailgatingAllowed: Bool?
    package var artistIDs: [String]
    package var albumIDs: [String]
    package var playlistIDs: [String]
    package var seats: [PassSeat]
    // Flight and transit (iOS 12, 26)
    package var airlineCode: String?
    package var flightCode: String?
    package var flightNumber: String?
    package var transitProvider: String?
    package var vehicleNumber: String?
    package var confirmationNumber: String?
    package var passengerName: PassPersonName?
    package var boardingGroup: String?
    package var boardingZone: String?
    package var boardingSequenceNumber: String?
    package var ticketFareClass: String?
    package var membershipProgramName: String?
    package var membershipProgramNumber: String?
    package var membershipProgramStatus: String?
    package var departureAirportCode: String?
    package var departureAirportName: String?
    package var departureCityName: String?
    package var departureGate: String?
    package var departureTerminal: String?
    package var departureStationName: String?
    package var departurePlatform: String?
    package var departureLocationDescription: String?
    /// `departureLocationTimeZone` (documentation) or `departureAirportTimeZone` (Pass Builder).
    package var departureTimeZone: String?
    package var departureLocation: PassCoordinate?
    package var destinationAirportCode: String?
    package var destinationAirportName: String?
    package var destinationCityName: String?
    package var destinationGate: String?
    package var destinationTerminal: String?
    package var destinationStationName: String?
    package var destinationPlatform: String?
    package var destinationLocationDescription: String?
    /// `destinationLocationTimeZone` (documentation) or `destinationAirportTimeZone` (Pass Builder).
    package var destinationTimeZone: String?
    package var destinationLocation: PassCoordinate?
    package var originalBoardingDate: PassDate?
    package var currentBoardingDate: PassDate?
    package var originalDepartureDate: PassDate?
    package var currentDepartureDate: PassDate?
    package var originalArrivalDate: PassDate?
    package var currentArrivalDate: PassDate?
    /// `…LocationSecurityPrograms` or `…AirportSecurityPrograms` (`PKTransitSecurityProgramTSAPreCheck`, …).
    package var departureSecurityPrograms: [String]
    package var destinationSecurityPrograms: [String]
    package var passengerEligibleSecurityPrograms: [String]
    package var passengerCapabilities: [String]
    package var passengerAirlineSSRs: [String]
    package var passengerInformationSSRs: [String]
    package var passengerServiceSSRs: [String]
    package var internationalDocumentsAreVerified: Bool?
    package var internationalDocumentsVerifiedDeclarationName: String?
    /// `loungePlaceIDs` (documentation), or the WWDC25 session's single `airlineLoungePlaceID`.
    package var loungePlaceIDs: [String]
    /// Tags this model does not type, by name, as written.
    package var other: [String: JSONValue]

    /// The tags of `object`; `path` names where they sit, for warnings.
    init(_ object: [String: JSONValue], path: String, warnings: inout [String]) {
        var r = JSONDictionaryReader(object, path: path)
        eventName = r.text("eventName")
        eventType = r.text("eventType")
        eventStartDate = r.date("eventStartDate")
        eventEndDate = r.date("eventEndDate")
        var nestedWarnings: [String] = []
        eventStartDateInfo = r.object("eventStartDateInfo").map {
            PassEventDate($0, path: path + ".eventStartDateInfo", warnings: &nestedWarnings)
        }
        eventLiveMessage = r.text("eventLiveMessage")
        entranceDescription = r.text("entranceDescription")
        venueName = r.text("venueName")
        venueRoom = r.text("venueRoom")
        venueRegionName = r.text("venueRegionName")
        venueFullAddress = r.text("venueFullAddress")
        venuePhoneNumber = r.text("venuePhoneNumber")
        venuePlaceID = r.text("venuePlaceID")
        venueEntrance = r.text("venueEntrance")
        venueEntranceGate = r.text("venueEntranceGate")
        venueEntranceDoor = r.text("venueEntranceDoor")
        venueEntrancePortal = r.text("venueEntrancePortal")
        venueLocation = r.object("venueLocation").flatMap(PassCoordinate.init)
        venueOpenDate = r.date("venueOpenDate")
        venueCloseDate = r.date("venueCloseDate")
        venueGatesOpenDate = r.date("venueGatesOpenDate")
        venueDoorsOpenDate = r.date("venueDoorsOpenDate")
        venueParkingLotsOpenDate = r.date("venueParkingLotsOpenDate")
        venueBoxOfficeOpenDate = r.date("venueBoxOfficeOpenDate")
        venueFanZoneOpenDate = r.date("venueFanZoneOpenDate")
        admissionLevel = r.text("admissionLevel")
        admissionLevelAbbreviation = r.text("admissionLevelAbbreviation")
        attendeeName = r.text("attendeeName")
        performerNames = r.texts("performerNames")
        homeTeamName = r.text("homeTeamName")
        homeTeamAbbreviation = r.text("homeTeamAbbreviation")
        homeTeamLocation = r.text("homeTeamLocation")
        awayTeamName = r.text("awayTeamName")
        awayTeamAbbreviation = r.text("awayTeamAbbreviation")
        awayTeamLocation = r.text("awayTeamLocation")
        leagueName = r.text("leagueName")
        leagueAbbreviation = r.text("leagueAbbreviation")
        sportName = r.text("sportName")
        tailgatingAllowed = r.bool("tailgatingAllowed")
        artistIDs = r.texts("artistIDs")
        albumIDs = r.texts("albumIDs")
        playlistIDs = r.texts("playlistIDs")
        seats = r.objects("seats").enumerated().map { i, seat in
            PassSeat(seat, path: "\(path).seats[\(i)]", warnings: &nestedWarnings)
        }

        airlineCode = r.text("airlineCode")
        flightCode = r.text("flightCode")
        flightNumber = r.text("flightNumber")
        transitProvider = r.text("transitProvider")
        vehicleNumber = r.text("vehicleNumber")
        confirmationNumber = r.text("confirmationNumber")
        if let name = r.raw("passengerName") {
            passengerName = PassPersonName(name)
            if passengerName == nil {
                nestedWarnings.append("\(path).passengerName is \(JSONDictionaryReader.kind(name)), not a name; it is ignored")
            }
        }
        boardingGroup = r.text("boardingGroup")
        boardingZone = r.text("boardingZone")
        boardingSequenceNumber = r.text("boardingSequenceNumber")
        ticketFareClass = r.text("ticketFareClass")
        membershipProgramName = r.text("membershipProgramName")
        membershipProgramNumber = r.text("membershipProgramNumber")
        membershipProgramStatus = r.text("membershipProgramStatus")
        departureAirportCode = r.text("departureAirportCode")
        departureAirportName = r.text("departureAirportName")
        departureCityName = r.text("departureCityName")
        departureGate = r.text("departureGate")
        departureTerminal = r.text("departureTerminal")
        departureStationName = r.text("departureStationName")
        departurePlatform = r.text("departurePlatform")
        departureLocationDescription = r.text("departureLocationDescription")
        departureTimeZone = r.text(["departureLocationTimeZone", "departureAirportTimeZone"])
        departureLocation = r.object("departureLocation").flatMap(PassCoordinate.init)
        destinationAirportCode = r.text("destinationAirportCode")
        destinationAirportName = r.text("destinationAirportName")
        destinationCityName = r.text("destinationCityName")
        destinationGate = r.text("destinationGate")
        destinationTerminal = r.text("destinationTerminal")
        destinationStationName = r.text("destinationStationName")
        destinationPlatform = r.text("destinationPlatform")
        destinationLocationDescription = r.text("destinationLocationDescription")
        destinationTimeZone = r.text(["destinationLocationTimeZone", "destinationAirportTimeZone"])
        destinationLocation = r.object("destinationLocation").flatMap(PassCoordinate.init)
        originalBoardingDate = r.date("originalBoardingDate")
        currentBoardingDate = r.date("currentBoardingDate")
        originalDepartureDate = r.date("originalDepartureDate")
        currentDepartureDate = r.date("currentDepartureDate")
        originalArrivalDate = r.date("originalArrivalDate")
        currentArrivalDate = r.date("currentArrivalDate")
        let departurePrograms = r.texts("departureLocationSecurityPrograms")
        let departureAirportPrograms = r.texts("departureAirportSecurityPrograms")
        departureSecurityPrograms = departurePrograms.isEmpty ? departureAirportPrograms : departurePrograms
        let destinationPrograms = r.texts("destinationLocationSecurityPrograms")
        let destinationAirportPrograms = r.texts("destinationAirportSecurityPrograms")
        destinationSecurityPrograms = destinationPrograms.isEmpty ? destinationAirportPrograms : destinationPrograms
        passengerEligibleSecurityPrograms = r.texts("passengerEligibleSecurityPrograms")
        passengerCapabilities = r.texts("passengerCapabilities")
        passengerAirlineSSRs = r.texts("passengerAirlineSSRs")
        passengerInformationSSRs = r.texts("passengerInformationSSRs")
        passengerServiceSSRs = r.texts("passengerServiceSSRs")
        internationalDocumentsAreVerified = r.bool("internationalDocumentsAreVerified")
        internationalDocumentsVerifiedDeclarationName = r.text("internationalDocumentsVerifiedDeclarationName")
        let lounges = r.texts("loungePlaceIDs")
        let lounge = r.texts("airlineLoungePlaceID")
        loungePlaceIDs = lounges.isEmpty ? lounge : lounges
        other = r.remaining
        warnings += r.warnings + nestedWarnings
    }

    /// The semantics of `value` (a pass's or an entry's `semantics`): nil with a warning when it
    /// is not a dictionary (a string where Apple wants an object), as Wallet ignores it.
    static func read(_ value: JSONValue?, path: String, warnings: inout [String]) -> PassSemantics? {
        guard let value else { return nil }
        guard let object = value.object else {
            warnings.append("\(path) is \(JSONDictionaryReader.kind(value)), not an object; it is ignored")
            return nil
        }
        return PassSemantics(object, path: path, warnings: &warnings)
    }
}
