import DeliveryFilter
import MailMIME
import PassStore

/// The delivery filter's scanner run once per recipient library: offers and updates land in each
/// recipient's own library; the headers say what the first of them holds. With no library at all
/// the passes are still found and verified, and the headers say so (valid, untrusted, invalid).
package struct MilterScanner: FilterPassScanning {
    var options: FilterOptions
    var environment: [String: String]
    var libraries: [String]
    var openLibrary: LibraryOpener

    package init(options: FilterOptions, environment: [String: String], libraries: [String], openLibrary: @escaping LibraryOpener) {
        self.options = options
        self.environment = environment
        self.libraries = libraries
        self.openLibrary = openLibrary
    }

    package func scan(message: [UInt8]) throws -> [FilterPassReport] {
        // Most mail carries no pass: one cheap look decides before any library is opened.
        guard FilterScanner.mayCarryPass(MIMEParser.parse(message, limits: options.config.limits.mime)) else { return [] }
        guard !libraries.isEmpty else {
            return try FilterScanner(options: options, environment: environment, openLibrary: openLibrary, opensLibrary: false).scan(message: message)
        }
        var first: [FilterPassReport]? = nil
        var failures: [String] = []
        var unavailable = false
        for path in libraries {
            var o = options
            o.libraryPath = path
            do {
                let reports = try FilterScanner(options: o, environment: environment, openLibrary: openLibrary).scan(message: message)
                if first == nil { first = reports }
            } catch {
                // One recipient's busy or broken library costs that recipient's offer only.
                failures.append("\(path): \(error)")
                if (error as? FilterError)?.code == .libraryUnavailable { unavailable = true }
            }
        }
        if let first { return first }
        // Every library failed and a server among them is down: the message waits (tempfail).
        throw FilterError(unavailable ? .libraryUnavailable : .scanFailed,
                          detail: "no recipient library could be used: " + failures.joined(separator: "; "))
    }
}

/// What the milter sends a scan worker: the recipients' libraries, then the message. Framed as
/// `<count>\n` + one absolute path per line + the message bytes; a path holds no LF (LibraryMap
/// allows none), and a malformed request is refused by the worker.
package enum MilterScanRequest {
    /// Recipients' libraries in one request, at most (the message's own cap is separate).
    package static let maxLibraries = 1000
    package static let maxEnvelopeBytes = maxLibraries * 4097 + 16

    package static func encode(libraries: [String], message: [UInt8]) -> [UInt8] {
        let paths = libraries.prefix(maxLibraries).filter { !$0.utf8.contains(10) && $0.utf8.count <= 4096 }
        var out = Array("\(paths.count)\n".utf8)
        for p in paths { out += Array(p.utf8) + [10] }
        return out + message
    }

    package static func decode(_ request: [UInt8]) -> (libraries: [String], message: [UInt8])? {
        guard let firstLF = request.prefix(8).firstIndex(of: 10),
              let count = Int(String(decoding: request[..<firstLF], as: UTF8.self)), (0...maxLibraries).contains(count) else { return nil }
        var position = firstLF + 1
        var libraries: [String] = []
        for _ in 0..<count {
            guard let lf = request[position...].prefix(4097).firstIndex(of: 10) else { return nil }
            libraries.append(String(decoding: request[position..<lf], as: UTF8.self))
            position = lf + 1
        }
        return (libraries, Array(request[position...]))
    }
}
