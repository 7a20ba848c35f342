import Foundation

/// pass.json as a typed model covering the documented keys (pkpass-format.md §3): standard keys,
/// the style and its field groups, associated apps, expiration and relevance, visual keys,
/// web service, NFC, semantics and the iOS 18/26 URL keys. Unknown keys are kept by name.
///
/// Lenient where Wallet is (wrong-typed optional keys are dropped, `voided` as a string, colours in
/// any CSS form, `barcodes` then `barcode`), strict where Wallet is: the required keys,
/// `formatVersion` 1, a style key, `transitType` for boarding passes (`PassDocument.problem`).
package struct PassDocument: Sendable, Equatable {
    package struct Fields: Sendable, Equatable {
        package var headerFields: [PassField] = []
        package var primaryFields: [PassField] = []
        package var secondaryFields: [PassField] = []
        package var auxiliaryFields: [PassField] = []
        package var backFields: [PassField] = []
        package var additionalInfoFields: [PassField] = []
        /// iOS 27's `footerFields` (poster generic passes): the first one is also the auxiliary row.
        package var footerFields: [PassField] = []
        package var transitType: String?

        package var all: [PassField] {
            PassFieldGroup.allCases.flatMap { $0.fields(of: self) }
        }
    }

    package struct RelevantDate: Sendable, Equatable {
        package var date: PassDate?
        package var startDate: PassDate?
        package var endDate: PassDate?
    }

    package struct Location: Sendable, Equatable {
        package var latitude: Double
        package var longitude: Double
        package var altitude: Double?
        package var relevantText: String?
    }

    package struct Beacon: Sendable, Equatable {
        package var proximityUUID: String
        package var major: Int?
        package var minor: Int?
        package var relevantText: String?
    }

    package struct NFC: Sendable, Equatable {
        package var message: String?
        package var encryptionPublicKey: String?
        package var requiresAuthentication: Bool
    }

    // Standard
    package var formatVersion: Int?
    package var passTypeIdentifier: String
    package var serialNumber: String
    package var teamIdentifier: String
    package var organizationName: String
    package var description: String
    // Style
    package var kind: PassKind?
    /// Every style key the pass carries, in `PassKind` order (`kind` is the first): a poster
    /// generic pass with its classic fallback has two.
    package var styles: [PassKind] = []
    package var fields: Fields
    // Associated app
    package var appLaunchURL: String?
    package var associatedStoreIdentifiers: [Int]
    package var auxiliaryStoreIdentifiers: [Int]
    package var userInfo: JSONValue?
    // Expiration and relevance
    package var expirationDate: PassDate?
    package var voided: Bool
    package var relevantDate: PassDate?
    package var relevantDates: [RelevantDate]
    package var locations: [Location]
    package var beacons: [Beacon]
    package var maxDistance: Double?
    // Visual
    /// `barcodes` when it has an item, else the legacy `barcode`.
    package var barcodes: [PassBarcode]
    /// The legacy (iOS 6-8) `barcode` dictionary, also when `barcodes` is present: Wallet falls back
    /// to it when no item of `barcodes` has a format it supports.
    package var legacyBarcode: PassBarcode?
    package var backgroundColor: PassColor?
    package var foregroundColor: PassColor?
    package var labelColor: PassColor?
    package var stripColor: PassColor?
    package var footerBackgroundColor: PassColor?
    package var suppressHeaderDarkening: Bool?
    package var useAutomaticColors: Bool?
    package var suppressStripShine: Bool?
    package var sharingProhibited: Bool?
    package var logoText: String?
    package var eventLogoText: String?
    package var groupingIdentifier: String?
    package var preferredStyleSchemes: [String]
    /// `semantics` as written (the calendar and the library's times read it).
    package var semantics: JSONValue?
    /// `semantics` typed; nil when absent or not a dictionary (a warning says so).
    package var semanticTags: PassSemantics?
    /// `upcomingPassInformation` (iOS 26), typed, at most `PassLimits.maxUpcomingEntries` of them.
    package var upcomingPassInformation: [UpcomingPassEntry]
    /// Entries of `upcomingPassInformation` past the limit, left out of the model.
    package var upcomingLeftOut: Int
    /// `featuredActions` (iOS 27) as written, also the ones Wallet would not show
    /// (`FeaturedAction.shown` picks those).
    package var featuredActions: [FeaturedAction]
    /// iOS 27's SF Symbol logo (`logoSymbolName`): no SF Symbols on Linux, so logo text is drawn.
    package var logoSymbolName: String?
    // Web service, NFC, URLs
    package var webServiceURL: String?
    package var authenticationToken: String?
    package var nfc: NFC?
    /// The iOS 18 event-guide and iOS 26 boarding-pass URL/contact keys that are present, by name
    /// (`linkList` has them typed).
    package var links: [String: String]
    /// The fields of every style dictionary present (`fields` is the one of `kind`): a poster
    /// generic pass with a classic fallback has both.
    package var fieldsByStyle: [PassKind: Fields]
    /// Top-level keys this model does not know (ignored, as Wallet ignores them).
    package var unknownKeys: [String]
    /// The first thing Wallet would refuse, if any (missing-required-key, unsupported-format-version).
    package var problem: PassError?
    /// Things tolerated on the way (wrong-typed optional keys, malformed field items).
    package var warnings: [String]

    /// Every URL/contact key Wallet shows below a pass (`trackBagsURL` was missing, so it was an
    /// unknown key and the scrubber kept it).
    static let linkKeys: [String] = PassLinkKey.allCases.map(\.rawValue)

    /// The links present, typed, in `PassLinkKey` order.
    package var linkList: [PassLink] { PassLink.list(links) }

    static let knownKeys: Set<String> = Set([
        "formatVersion", "passTypeIdentifier", "serialNumber", "teamIdentifier", "organizationName", "description",
        "appLaunchURL", "associatedStoreIdentifiers", "auxiliaryStoreIdentifiers", "userInfo", "expirationDate",
        "voided", "relevantDate", "relevantDates", "locations", "beacons", "maxDistance", "barcode", "barcodes",
        "backgroundColor", "foregroundColor", "labelColor", "stripColor", "footerBackgroundColor",
        "suppressHeaderDarkening", "useAutomaticColors", "suppressStripShine", "sharingProhibited", "logoText",
        "eventLogoText", "groupingIdentifier", "preferredStyleSchemes", "semantics", "upcomingPassInformation",
        "webServiceURL", "authenticationToken", "nfc", "featuredActions", "logoSymbolName",
    ] + PassKind.allCases.map(\.rawValue) + linkKeys)

    /// Reads pass.json bytes: `.failure` only when they are not a JSON object (bad-json); a readable
    /// object gives a document whose `problem` says what Wallet would refuse.
    static func parse(_ bytes: [UInt8], maxDepth: Int,
                      maxUpcomingEntries: Int = PassLimits.default.maxUpcomingEntries) -> Result<PassDocument, PassError> {
        switch JSONReader.parse(bytes, maxDepth: maxDepth) {
        case .failure(let f): return .failure(.badJSON("pass.json", f.description))
        case .success(let json):
            guard let object = json.object else { return .failure(.badJSON("pass.json", "is not a JSON object")) }
            return .success(PassDocument(object, maxUpcomingEntries: maxUpcomingEntries))
        }
    }

    init(_ o: [String: JSONValue], maxUpcomingEntries: Int = PassLimits.default.maxUpcomingEntries) {
        var warnings: [String] = []
        var problem: PassError?
        func required(_ key: String) -> String {
            guard let value = o[key] else {
                if problem == nil { problem = .missingRequiredKey(key) }
                return ""
            }
            guard let text = value.text, !text.isEmpty else {
                if problem == nil { problem = .missingRequiredKey(key, "is not a non-empty string") }
                return ""
            }
            return text
        }
        func date(_ key: String, in dict: [String: JSONValue] = o) -> PassDate? {
            guard let v = dict[key] else { return nil }
            guard let s = v.string, let d = PassDate(s) else {
                warnings.append("\(key) is not a date: \(v.text ?? "?")")
                return nil
            }
            return d
        }
        func color(_ key: String) -> PassColor? {
            guard let v = o[key] else { return nil }
            guard let s = v.string, let c = PassColor(s) else {
                warnings.append("\(key) is not a colour: \(v.text ?? "?")")
                return nil
            }
            return c
        }
        func bool(_ key: String) -> Bool? { o[key]?.lenientBool }
        func ints(_ key: String) -> [Int] {
            (o[key]?.array ?? []).compactMap(\.integer)
        }

        passTypeIdentifier = required("passTypeIdentifier")
        serialNumber = required("serialNumber")
        teamIdentifier = required("teamIdentifier")
        organizationName = required("organizationName")
        description = required("description")
        switch o["formatVersion"] {
        case nil:
            formatVersion = nil
            if problem == nil { problem = .missingRequiredKey("formatVersion") }
        case .some(let v):
            let n = v.number ?? v.string.flatMap(Double.init)
            formatVersion = n.flatMap { Int(exactly: $0) }
            if formatVersion != 1, problem == nil { problem = .unsupportedFormatVersion(v.text ?? "not a number") }
        }

        styles = PassKind.allCases.filter { o[$0.rawValue] != nil }
        kind = styles.first
        var byStyle: [PassKind: Fields] = [:]
        for style in styles {
            let dict = o[style.rawValue]?.object ?? [:]
            var fields = Fields()
            func group(_ key: String) -> [PassField] {
                guard let items = dict[key]?.array else { return [] }
                return items.compactMap { item in
                    let f = PassField(item)
                    if f == nil { warnings.append("\(style.rawValue).\(key) has an item without a key") }
                    return f
                }
            }
            fields.headerFields = group("headerFields")
            fields.primaryFields = group("primaryFields")
            fields.secondaryFields = group("secondaryFields")
            fields.auxiliaryFields = group("auxiliaryFields")
            fields.backFields = group("backFields")
            fields.additionalInfoFields = group("additionalInfoFields")
            fields.footerFields = group("footerFields")
            // A poster generic pass has a footer instead of secondary and auxiliary rows; Wallet
            // draws its first footer field at the bottom of the face, where the auxiliary row is.
            if style == .posterGeneric, fields.auxiliaryFields.isEmpty {
                fields.auxiliaryFields = Array(fields.footerFields.prefix(1))
            }
            fields.transitType = dict["transitType"]?.string
            byStyle[style] = fields
        }
        fieldsByStyle = byStyle
        if let kind {
            if kind == .boardingPass, byStyle[kind]?.transitType == nil, problem == nil {
                problem = .missingRequiredKey("boardingPass.transitType")
            }
        } else if problem == nil {
            problem = .missingStyle()
        }
        self.fields = kind.flatMap { byStyle[$0] } ?? Fields()

        appLaunchURL = o["appLaunchURL"]?.string
        associatedStoreIdentifiers = ints("associatedStoreIdentifiers")
        auxiliaryStoreIdentifiers = ints("auxiliaryStoreIdentifiers")
        userInfo = o["userInfo"]
        expirationDate = date("expirationDate")
        voided = bool("voided") ?? false
        relevantDate = date("relevantDate")
        relevantDates = (o["relevantDates"]?.array ?? []).compactMap { item in
            guard let d = item.object else { return nil }
            let r = RelevantDate(date: date("date", in: d) ?? date("relevantDate", in: d),
                                 startDate: date("startDate", in: d), endDate: date("endDate", in: d))
            return r.date == nil && r.startDate == nil ? nil : r
        }
        locations = (o["locations"]?.array ?? []).compactMap { item in
            guard let d = item.object, let lat = d["latitude"]?.number, let lon = d["longitude"]?.number else { return nil }
            return Location(latitude: lat, longitude: lon, altitude: d["altitude"]?.number, relevantText: d["relevantText"]?.text)
        }
        beacons = (o["beacons"]?.array ?? []).compactMap { item in
            guard let d = item.object, let uuid = d["proximityUUID"]?.string else { return nil }
            return Beacon(proximityUUID: uuid, major: d["major"]?.integer, minor: d["minor"]?.integer,
                          relevantText: d["relevantText"]?.text)
        }
        maxDistance = o["maxDistance"]?.number
        let modern = (o["barcodes"]?.array ?? []).compactMap(PassBarcode.init)
        legacyBarcode = o["barcode"].flatMap(PassBarcode.init)
        barcodes = modern.isEmpty ? (legacyBarcode.map { [$0] } ?? []) : modern
        backgroundColor = color("backgroundColor")
        foregroundColor = color("foregroundColor")
        labelColor = color("labelColor")
        stripColor = color("stripColor")
        footerBackgroundColor = color("footerBackgroundColor")
        suppressHeaderDarkening = bool("suppressHeaderDarkening")
        useAutomaticColors = bool("useAutomaticColors")
        suppressStripShine = bool("suppressStripShine")
        sharingProhibited = bool("sharingProhibited")
        logoText = o["logoText"]?.text
        eventLogoText = o["eventLogoText"]?.text
        groupingIdentifier = o["groupingIdentifier"]?.text
        preferredStyleSchemes = (o["preferredStyleSchemes"]?.array ?? []).compactMap(\.string)
        semantics = o["semantics"]
        semanticTags = PassSemantics.read(o["semantics"], path: "semantics", warnings: &warnings)
        var upcoming: [UpcomingPassEntry] = []
        var upcomingLeftOut = 0
        if let value = o["upcomingPassInformation"] {
            if let items = value.array {
                for (i, item) in items.enumerated() {
                    guard upcoming.count < maxUpcomingEntries else { upcomingLeftOut += 1; continue }
                    guard let entry = item.object else {
                        warnings.append("upcomingPassInformation[\(i)] is \(JSONDictionaryReader.kind(item)), not an object; it is ignored")
                        continue
                    }
                    upcoming.append(UpcomingPassEntry(entry, path: "upcomingPassInformation[\(i)]", warnings: &warnings))
                }
                if upcomingLeftOut > 0 {
                    warnings.append("upcomingPassInformation has \(items.count) entries: the first \(maxUpcomingEntries) are read, \(upcomingLeftOut) left out")
                }
            } else {
                warnings.append("upcomingPassInformation is \(JSONDictionaryReader.kind(value)), not a list; it is ignored")
            }
        }
        upcomingPassInformation = upcoming
        self.upcomingLeftOut = upcomingLeftOut
        var actions: [FeaturedAction] = []
        if let value = o["featuredActions"] {
            if let items = value.array {
                for (i, item) in items.enumerated() {
                    guard let entry = item.object else {
                        warnings.append("featuredActions[\(i)] is \(JSONDictionaryReader.kind(item)), not an object; it is ignored")
                        continue
                    }
                    let action = FeaturedAction(entry, path: "featuredActions[\(i)]", warnings: &warnings)
                    if let reason = action.leftOutReason {
                        warnings.append("featuredActions[\(i)] is left out: \(reason)")
                    }
                    actions.append(action)
                }
                let usable = actions.filter { $0.leftOutReason == nil }.count
                if usable > FeaturedAction.maxShown {
                    warnings.append("featuredActions has \(usable) actions: Wallet shows the first \(FeaturedAction.maxShown)")
                }
            } else {
                warnings.append("featuredActions is \(JSONDictionaryReader.kind(value)), not a list; it is ignored")
            }
        }
        featuredActions = actions
        logoSymbolName = o["logoSymbolName"]?.string
        webServiceURL = o["webServiceURL"]?.string
        authenticationToken = o["authenticationToken"]?.text
        nfc = o["nfc"]?.object.map {
            NFC(message: $0["message"]?.text, encryptionPublicKey: $0["encryptionPublicKey"]?.string,
                requiresAuthentication: $0["requiresAuthentication"]?.lenientBool ?? false)
        }
        var links: [String: String] = [:]
        for key in Self.linkKeys { if let v = o[key]?.text { links[key] = v } }
        self.links = links
        unknownKeys = o.keys.filter { !Self.knownKeys.contains($0) }.sorted()
        self.problem = problem
        self.warnings = warnings
    }
}
