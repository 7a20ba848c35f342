/// One seat of `semantics.seats` (iOS 12, `seatAisle` and `seatSectionColor` iOS 18): a poster
/// event ticket's footer shows up to four of its elements, and `seatSectionColor` colours the strip.
package struct PassSeat: Sendable, Equatable {
    package var section: String?
    package var row: String?
    package var number: String?
    package var identifier: String?
    package var type: String?
    package var description: String?
    package var level: String?
    package var aisle: String?
    package var sectionColor: PassColor?
    /// Keys of the seat this model does not know, as written.
    package var other: [String: JSONValue]

    init(_ o: [String: JSONValue], path: String, warnings: inout [String]) {
        var r = JSONDictionaryReader(o, path: path)
        section = r.text("seatSection")
        row = r.text("seatRow")
        number = r.text("seatNumber")
        identifier = r.text("seatIdentifier")
        type = r.text("seatType")
        description = r.text("seatDescription")
        level = r.text("seatLevel")
        aisle = r.text("seatAisle")
        sectionColor = r.color("seatSectionColor")
        other = r.remaining
        warnings += r.warnings
    }
}
