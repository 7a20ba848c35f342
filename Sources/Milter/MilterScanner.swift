import DeliveryFilter
import MailMIME
import PassStore

/// The delivery filter's scanner run once per recipient library: offers and updates land in each
/// recipient's own library; the headers say what the first of them holds. With no library at all
/// the passes are still found and verified, and the headers say so (valid, untrusted, invalid).
package struct MilterScanner: FilterPassScanning {
    var options: FilterOptions
    var environment: [String: String]
    var libraries: [LibraryMap.Target]
    var openLibrary: LibraryOpener
    /// Opens a recipient's library on a server only if the server already holds it
    /// (`LibraryError.Kind.notFound` otherwise): that recipient then gets headers only.
    var openExistingLibrary: LibraryOpener

    package init(options: FilterOptions, environment: [String: String], libraries: [LibraryMap.Target],
                 openLibrary: @escaping LibraryOpener, openExistingLibrary: LibraryOpener? = nil) {
        self.options = options
        self.environment = environment
        self.libraries = libraries
        self.openLibrary = openLibrary
        self.openExistingLibrary = openExistingLibrary ?? openLibrary
    }

    package func scan(message: [UInt8]) throws -> [FilterPassReport] {
        // Most mail carries no pass: one cheap look decides before any library is opened.
        guard FilterScanner.mayCarryPass(MIMEParser.parse(message, limits: options.config.limits.mime)) else { return [] }
        var first: [FilterPassReport]? = nil
        var failures: [String] = []
        var unavailable = false
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
            do {
                let reports = try FilterScanner(options: o, environment: environment, openLibrary: open).scan(message: message)
                if first == nil { first = reports }
            } catch let error as LibraryError where error.kind == .notFound && target.user != nil {
                // The server holds no library for this recipient: headers only for them.
                continue
            } catch {
                // One recipient's busy or broken library costs that recipient's offer only.
                failures.append("\(target.location)\(target.user.map { " (user \($0))" } ?? ""): \(error)")
                if (error as? FilterError)?.code == .libraryUnavailable { unavailable = true }
            }
        }
        if let first { return first }
        if failures.isEmpty {
            // No recipient has a library: the passes are still found and verified for the headers.
            return try FilterScanner(options: options, environment: environment, openLibrary: openLibrary, opensLibrary: false).scan(message: message)
        }
        // Every library failed and a server among them is down: the message waits (tempfail).
        throw FilterError(unavailable ? .libraryUnavailable : .scanFailed,
                          detail: "no recipient library could be used: " + failures.joined(separator: "; "))
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
        let lines = libraries.prefix(maxLibraries).compactMap { t -> [UInt8]? in
            let user = t.user ?? ""
            guard !t.location.utf8.contains(10), t.location.utf8.count <= 4096,
                  !user.utf8.contains(where: { $0 == 9 || $0 == 10 }), user.utf8.count <= 513 else { return nil }
            return Array(t.location.utf8) + [9] + Array(user.utf8)
        }
        var out = Array("\(lines.count)\n".utf8)
        for line in lines { out += line + [10] }
        return out + message
    }

    package static func decode(_ request: [UInt8]) -> (libraries: [LibraryMap.Target], message: [UInt8])? {
        guard let firstLF = request.prefix(8).firstIndex(of: 10),
              let count = Int(String(decoding: request[..<firstLF], as: UTF8.self)), (0...maxLibraries).contains(count) else { return nil }
        var position = firstLF + 1
        var libraries: [LibraryMap.Target] = []
        for _ in 0..<count {
            guard let lf = request[position...].prefix(maxLineBytes + 1).firstIndex(of: 10),
                  let tab = request[position..<lf].lastIndex(of: 9) else { return nil }
            let user = String(decoding: request[(tab + 1)..<lf], as: UTF8.self)
            libraries.append(LibraryMap.Target(String(decoding: request[position..<tab], as: UTF8.self), user: user.isEmpty ? nil : user))
            position = lf + 1
        }
        return (libraries, Array(request[position...]))
    }
}
