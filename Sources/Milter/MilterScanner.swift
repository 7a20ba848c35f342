import DeliveryFilter
import MailMIME
import PassStore

/// The delivery filter's scanner run once per recipient library: offers and updates land in each
/// recipient's own library, and each library's outcome (what it held, what was done, or why it
/// could not be used) goes to the log, one entry per library. With no library at all the passes
/// are still found and verified for the headers (valid, untrusted, invalid).
///
/// The headers every copy of the message carries say only what is true for all of them: the
/// passes and their verdicts. A library's state and action ("new; action=offered") are in them
/// only when every recipient shares that one library (`sharedLibrary`: a `--library` daemon, or a
/// message to one recipient); otherwise one mailbox's contents would reach every other recipient,
/// Bcc and external ones included.
package struct MilterScanner: FilterPassScanning {
    var options: FilterOptions
    var environment: [String: String]
    var libraries: [LibraryMap.Target]
    /// Every recipient of the message uses `libraries[0]` (and there is no other).
    var sharedLibrary: Bool
    var openLibrary: LibraryOpener
    /// Opens a recipient's library on a server only if the server already holds it
    /// (`LibraryError.Kind.notFound` otherwise): that recipient then gets headers only.
    var openExistingLibrary: LibraryOpener

    package init(options: FilterOptions, environment: [String: String], libraries: [LibraryMap.Target], sharedLibrary: Bool = false,
                 openLibrary: @escaping LibraryOpener, openExistingLibrary: LibraryOpener? = nil) {
        self.options = options
        self.environment = environment
        self.libraries = libraries
        self.sharedLibrary = sharedLibrary && libraries.count == 1
        self.openLibrary = openLibrary
        self.openExistingLibrary = openExistingLibrary ?? openLibrary
    }

    package func scan(message: [UInt8]) throws -> [FilterPassReport] {
        try scanNoted(message: message).reports
    }

    /// The reports for the shared headers, and one entry per library for the log. A library that
    /// cannot be used is the library-error policy's: with `tempfail` (or `--on-error tempfail`)
    /// the scan fails and the message waits; with `accept` it is noted and the rest goes on.
    package func scanNoted(message: [UInt8]) throws -> (reports: [FilterPassReport], libraries: [FilterLibraryNote]) {
        // Most mail carries no pass: one cheap look decides before any library is opened.
        guard FilterScanner.mayCarryPass(MIMEParser.parse(message, limits: options.config.limits.mime)) else { return ([], []) }
        var first: [FilterPassReport]? = nil
        var notes: [FilterLibraryNote] = []
        var failed: [FilterError] = []
        for target in libraries {
            var o = options
            o.libraryPath = target.location
            var open = openLibrary
            if let user = target.user {
                // The recipient is the library user, never part of the location.
                let existing = openExistingLibrary
                open = { location, libraryOptions in
                    var libraryOptions = libraryOptions
                    libraryOptions.user = user
                    return try existing(location, libraryOptions)
                }
            }
            let name = FilterLibraryNote.name(target.location, user: target.user)
            do {
                let reports = try FilterScanner(options: o, environment: environment, openLibrary: open).scan(message: message)
                if first == nil { first = reports }
                notes.append(FilterLibraryNote(library: name, outcome: FilterLibraryNote.outcome(of: reports)))
            } catch let error as LibraryError where error.kind == .notFound && target.user != nil {
                // The server holds no library for this recipient: headers only for them.
                notes.append(FilterLibraryNote(library: name, outcome: "no-library"))
            } catch let error as FilterError where error.isLibraryError {
                // One recipient's busy, broken or unreachable library: named in the log, and the
                // policy decides (below) whether the message waits for it.
                notes.append(FilterLibraryNote(library: name, outcome: "", error: error))
                failed.append(error)
            }
        }
        if !failed.isEmpty && options.tempfailsOnLibraryError {
            let names = notes.filter { $0.error != nil }.map(\.library)
            throw FilterError(failed.contains { $0.code == .libraryUnavailable } ? .libraryUnavailable : .libraryFailed,
                              detail: "pass library unavailable: " + names.joined(separator: ", "))
        }
        if sharedLibrary, let first { return (first, notes) }
        if let first { return (first.map(Self.verdictOnly), notes) }
        // No recipient's library could be used (or none has one): the passes are still found and
        // verified for the headers.
        let verdicts = try FilterScanner(options: options, environment: environment, openLibrary: openLibrary, opensLibrary: false).scan(message: message)
        return (verdicts, notes)
    }

    /// What a report says that is true for every recipient: the pass and its verdict, without
    /// one library's state or action.
    static func verdictOnly(_ report: FilterPassReport) -> FilterPassReport {
        var r = report
        r.library = nil
        r.action = .none
        return r
    }
}

/// What the milter sends a scan worker: the recipients' libraries, then the message. Framed as
/// `<count>\n` + one `location TAB user` line per library (an empty user: nil) + the message
/// bytes; a location holds no LF, a user no TAB or LF (LibraryMap allows no byte <= 0x20 in an
/// address), the last TAB on a line splits it, and a malformed request is refused by the worker.
package enum MilterScanRequest {
    /// Recipients' libraries in one request, at most (the message's own cap is separate).
    package static let maxLibraries = 1000
    static let maxLineBytes = 4096 + 1 + 513
    package static let maxEnvelopeBytes = maxLibraries * (maxLineBytes + 1) + 16

    package static func encode(libraries: [LibraryMap.Target], message: [UInt8]) -> [UInt8] {
        encode(libraries: libraries, sharedLibrary: false, message: message)
    }

    /// `sharedLibrary`: every recipient uses the one library named (the count line ends `s`).
    package static func encode(libraries: [LibraryMap.Target], sharedLibrary: Bool, message: [UInt8]) -> [UInt8] {
        let lines = libraries.prefix(maxLibraries).compactMap { t -> [UInt8]? in
            let user = t.user ?? ""
            guard !t.location.utf8.contains(10), t.location.utf8.count <= 4096,
                  !user.utf8.contains(where: { $0 == 9 || $0 == 10 }), user.utf8.count <= 513 else { return nil }
            return Array(t.location.utf8) + [9] + Array(user.utf8)
        }
        var out = Array("\(lines.count)\(sharedLibrary && lines.count == 1 ? "s" : "")\n".utf8)
        for line in lines { out += line + [10] }
        return out + message
    }

    package static func decode(_ request: [UInt8]) -> (libraries: [LibraryMap.Target], message: [UInt8])? {
        decodeShared(request).map { ($0.libraries, $0.message) }
    }

    package static func decodeShared(_ request: [UInt8]) -> (libraries: [LibraryMap.Target], sharedLibrary: Bool, message: [UInt8])? {
        guard let firstLF = request.prefix(8).firstIndex(of: 10) else { return nil }
        var countText = request[..<firstLF]
        let shared = countText.last == 0x73   // "s"
        if shared { countText = countText.dropLast() }
        guard let count = Int(String(decoding: countText, as: UTF8.self)), (0...maxLibraries).contains(count) else { return nil }
        var position = firstLF + 1
        var libraries: [LibraryMap.Target] = []
        for _ in 0..<count {
            guard let lf = request[position...].prefix(maxLineBytes + 1).firstIndex(of: 10),
                  let tab = request[position..<lf].lastIndex(of: 9) else { return nil }
            let user = String(decoding: request[(tab + 1)..<lf], as: UTF8.self)
            libraries.append(LibraryMap.Target(String(decoding: request[position..<tab], as: UTF8.self), user: user.isEmpty ? nil : user))
            position = lf + 1
        }
        return (libraries, shared, Array(request[position...]))
    }
}
