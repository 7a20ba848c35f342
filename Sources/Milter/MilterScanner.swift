import DeliveryFilter
import MailMIME
import PassStore

/// The delivery filter's scanner run once per recipient library: offers and updates land in each
/// recipient's own library; the headers say what the first of them holds. With no library at all
/// the passes are still found and verified, and the headers say so (valid, untrusted, invalid).
struct MilterScanner: FilterPassScanning {
    var options: FilterOptions
    var environment: [String: String]
    var libraries: [String]
    var openLibrary: LibraryOpener

    func scan(message: [UInt8]) throws -> [FilterPassReport] {
        // Most mail carries no pass: one cheap look decides before any library is opened.
        guard FilterScanner.mayCarryPass(MIMEParser.parse(message, limits: options.config.limits.mime)) else { return [] }
        guard !libraries.isEmpty else {
            return try FilterScanner(options: options, environment: environment, openLibrary: openLibrary, opensLibrary: false).scan(message: message)
        }
        var first: [FilterPassReport]? = nil
        var failures: [String] = []
        for path in libraries {
            var o = options
            o.libraryPath = path
            do {
                let reports = try FilterScanner(options: o, environment: environment, openLibrary: openLibrary).scan(message: message)
                if first == nil { first = reports }
            } catch {
                // One recipient's busy or broken library costs that recipient's offer only.
                failures.append("\(path): \(error)")
            }
        }
        if let first { return first }
        throw FilterError(.scanFailed, detail: "no recipient library could be used: " + failures.joined(separator: "; "))
    }
}
