/// When an event happens, with what Wallet shows instead of a time: `semantics.eventStartDateInfo`
/// (iOS 18; `unannounced`/`undetermined` iOS 18.1) and an upcoming entry's `dateInformation`
/// (iOS 26, whose flags are spelled `isUnannounced`/`isUndetermined`; both spellings are read).
package struct PassEventDate: Sendable, Equatable {
    /// nil: the entry is "TBD" in Wallet.
    package var date: PassDate?
    /// Show the date without its time (`ignoreTimeComponents`).
    package var ignoresTime: Bool
    /// The event lasts the whole day (`isAllDay`): the time is ignored too.
    package var isAllDay: Bool
    /// The time is not announced yet: Wallet shows "Time TBA".
    package var isUnannounced: Bool
    /// The time is not decided yet: Wallet shows "TBD".
    package var isUndetermined: Bool
    /// An IANA zone name ("America/New_York") to show the date in; nil: the device's zone.
    package var timeZone: String?
    /// Keys this model does not know, as written.
    package var other: [String: JSONValue]

    init(_ o: [String: JSONValue], path: String, warnings: inout [String]) {
        var r = JSONDictionaryReader(o, path: path)
        date = r.date("date")
        ignoresTime = r.bool("ignoreTimeComponents") ?? false
        isAllDay = r.bool("isAllDay") ?? false
        isUnannounced = r.bool(["isUnannounced", "unannounced"]) ?? false
        isUndetermined = r.bool(["isUndetermined", "undetermined"]) ?? false
        timeZone = r.text("timeZone")
        other = r.remaining
        warnings += r.warnings
    }

    /// Whether the time of `date` is to be shown (not all day, not ignored, not TBA/TBD).
    package var showsTime: Bool { !ignoresTime && !isAllDay && !isUnannounced && !isUndetermined }
}
