import ArgumentParser
import Conduit
import Foundation
import PassCalendar
import PassStore
import WalletPass

struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        _superCommandName: "passconduit",
        abstract: "Write the dates of passes as calendar events (.ics, RFC 5545).",
        discussion: """
        One event per relevant date: each of a pass's relevantDates, or the event's or flight's own \
        times from its semantics, or its relevantDate. The event's name comes from the semantics \
        (event name, flight and route) or the pass's description; its notes list the pass's front \
        fields; its place is the venue or departure place, with coordinates when the pass has them. \
        An event without an end date in the pass gets none: no end time is guessed. Each of a \
        pass's upcomingPassInformation entries (iOS 26: several events on one pass) with a date is \
        an event of its own, with its own name, venue and UID; a time to be announced or all day \
        gives a whole-day event. A pass's first 100 entries are written; how many more were left \
        out is said on standard error.

        Times keep the UTC offset the pass gives them (as a fixed-offset time zone), so the \
        calendar shows the same clock time as the pass; times without a zone are UTC; a date \
        without a time is a whole-day event. Each event's UID stays the same for a pass and its \
        nth date, and its SEQUENCE counts the pass's versions, so importing a newer export updates \
        the events instead of adding copies. Voided passes give cancelled events.

        With no ID, every pass in the library that has a date is written.

        --alarm adds a reminder to each event (a VALARM that calendar programs, phones included, \
        show by themselves): a lead time for every event, such as 3h, 90m, 1d or 1h30m (0m: at \
        the start), or "kind" for each kind's own: 3 hours before a flight, 24 hours before an \
        event, 1 hour before any other pass's date. A cancelled event (a voided pass) gets none.

        Examples:
          passconduit calendar -o passes.ics
          passconduit calendar 3fa2c1 > concert.ics
          passconduit calendar -o - | khal import --batch -
          passconduit calendar --alarm kind -o passes.ics
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    // Unconditional: "--alarm -3h" reaches validate() and its usage error instead of reading as options -3 and -h.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Remind this long before each event (3h, 90m, 1d), or \"kind\" for each kind's own lead time.", valueName: "lead"))
    var alarm: String?

    @Argument(help: "The passes: type/serial or a SHA-256 prefix; none for every pass with a date.")
    var ids: [String] = []

    func validate() throws {
        if global.json {
            throw ValidationError("--json: calendar writes iCalendar (.ics), not JSON. Use \"passconduit list --json\" for the passes as JSON.")
        }
        if let alarm, CalendarAlarms.parse(alarm) == nil {
            throw ValidationError("--alarm wants a lead time such as 3h, 90m, 1d or 1h30m (at most 4w), or \"kind\"; not \(alarm)")
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let library = try context.library(reading: true)
            let opener = try context.opener()
            var chosen: [(name: String?, pass: StoredPass)] = []
            if ids.isEmpty {
                chosen = try LibraryCall.run { try await library.passes() }.map { (nil, $0) }
            } else {
                var seen = Set<PassID>()
                for text in ids {
                    let id = try context.resolve(text, in: library)
                    if seen.insert(id).inserted { chosen.append((text, try context.storedPass(id, named: text, in: library))) }
                }
            }
            let opened = chosen
            let alarms = alarm.flatMap(CalendarAlarms.parse)
            let result = try LibraryCall.run { try await LibraryCalendar.write(opened, library: library, opener: opener, alarms: alarms) }
            for warning in result.warnings { Terminal.warn(warning) }
            for name in result.dateless { Terminal.warn("\(name): the pass has no date to put in a calendar") }
            if result.eventCount == 0 && !ids.isEmpty {
                throw CLIError("no event to write: the passes named have no date", status: .noInput)
            }
            let text = result.text
            if let output, output != "-" {
                try OutputFile.writeFile(Array(text.utf8), to: output, what: "calendar")
                Terminal.warn("wrote \(result.eventCount) \(result.eventCount == 1 ? "event" : "events") to \(output)")
            } else if let code = OutputFile.writeAll(Array(text.utf8), to: 1) {
                throw CLIError("cannot write the calendar to standard output: \(String(cString: strerror(code)))", status: .ioError)
            }
            return .success
        }
    }
}
