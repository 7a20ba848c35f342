/// One item of `upcomingPassInformation` (iOS 26): another event on the same pass, with its own
/// name, date, semantics, links, images and fields; it inherits nothing from the pass
/// (WWDC25 session 202; Pass Builder `UpcomingPassInformationEntry.swift`).
package struct UpcomingPassEntry: Sendable, Equatable {
    /// Unique among the pass's entries (required by Apple; kept nil when missing).
    package var identifier: String?
    package var name: String?
    /// "event", the only type Apple documents.
    package var type: String?
    package var isActive: Bool
    /// nil: Wallet labels the entry "TBD".
    package var dateInformation: PassEventDate?
    package var semantics: PassSemantics?
    /// The entry's `URLs`, by `PassLinkKey` name (keys Apple does not list stay in `other`).
    package var links: [String: String]
    package var headerImage: UpcomingPassImage?
    package var venueMap: UpcomingPassImage?
    package var additionalInfoFields: [PassField]
    package var backFields: [PassField]
    package var auxiliaryStoreIdentifiers: [Int]
    /// Keys of the entry this model does not know, as written.
    package var other: [String: JSONValue]

    init(_ o: [String: JSONValue], path: String, warnings: inout [String]) {
        var r = JSONDictionaryReader(o, path: path)
        identifier = r.text("identifier")
        name = r.text("name")
        type = r.text("type")
        isActive = r.bool("isActive") ?? false
        let dateInfo = r.object("dateInformation")
        let semanticsValue = r.raw("semantics")
        let urls = r.object("URLs")
        let images = r.object("images")
        let additional = r.raw("additionalInfoFields")
        let back = r.raw("backFields")
        auxiliaryStoreIdentifiers = r.integers("auxiliaryStoreIdentifiers")
        other = r.remaining
        warnings += r.warnings

        dateInformation = dateInfo.map { PassEventDate($0, path: path + ".dateInformation", warnings: &warnings) }
        semantics = PassSemantics.read(semanticsValue, path: path + ".semantics", warnings: &warnings)
        var links: [String: String] = [:]
        for (key, value) in urls ?? [:] {
            guard PassLinkKey(rawValue: key) != nil else {
                other["URLs." + key] = value
                continue
            }
            if let text = value.string { links[key] = text } else {
                warnings.append("\(path).URLs.\(key) is \(JSONDictionaryReader.kind(value)), not text; it is ignored")
            }
        }
        self.links = links
        var imageReader = JSONDictionaryReader(images ?? [:], path: path + ".images")
        let header = imageReader.object("headerImage")
        let map = imageReader.object("venueMap")
        warnings += imageReader.warnings
        for (key, value) in imageReader.remaining { other["images." + key] = value }
        headerImage = header.map { UpcomingPassImage($0, path: path + ".images.headerImage", warnings: &warnings) }
        venueMap = map.map { UpcomingPassImage($0, path: path + ".images.venueMap", warnings: &warnings) }
        func fields(_ value: JSONValue?, _ key: String) -> [PassField] {
            guard let value else { return [] }
            guard let items = value.array else {
                warnings.append("\(path).\(key) is \(JSONDictionaryReader.kind(value)), not a list; it is ignored")
                return []
            }
            return items.compactMap { item in
                let f = PassField(item)
                if f == nil { warnings.append("\(path).\(key) has an item without a key") }
                return f
            }
        }
        additionalInfoFields = fields(additional, "additionalInfoFields")
        backFields = fields(back, "backFields")
    }

    /// The entry's links in `PassLinkKey` order.
    package var linkList: [PassLink] { PassLink.list(links) }
}
