import Conduit
import Foundation
import MailMIME
import PassRender
import PassStore
import WalletPass
#if canImport(Glibc)
import Glibc
#endif

/// The pass a `render` or `open` SOURCE names: a `.pkpass` file, `-` for standard input, or an ID
/// in the library. Opened and verified like any pass; a pass whose pass.json cannot be read is an
/// error (65), anything else renders — with a band saying why it is not verified.
struct RenderSource {
    var verdict: PassVerdict
    var info: PassInfo
    /// What to call it in messages.
    var name: String

    static func load(_ source: String, context: Context) throws -> RenderSource {
        let bytes: [UInt8]
        let name: String
        let cap = PassLimits.default.maxArchiveBytes
        if source == "-" {
            bytes = try readAll(FileHandle.standardInput, limit: cap, what: "standard input")
            name = "standard input"
        } else if Self.exists(source) {
            // The path's own bytes (a file name that is not UTF-8 opens, as in scan and add).
            let fd = PathBytes.open(source, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw CLIError("\(source): cannot be read (\(String(cString: strerror(errno))))", status: .noInput)
            }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            defer { try? handle.close() }
            bytes = try readAll(handle, limit: cap, what: source)
            name = source
        } else if source.hasSuffix(".pkpass") || source.hasPrefix("/") || source.hasPrefix("./") || source.hasPrefix("~") {
            throw CLIError("\(source): no such file", status: .noInput)
        } else {
            let (library, id) = try context.libraryAndPass(source, reading: true)
            bytes = try LibraryCall.run { try await library.export(id) }
            name = "\(id)"
        }
        let verdict = try context.opener().open(bytes)
        guard let info = verdict.pass else {
            let message = verdict.error?.message ?? "This is not a pass."
            if context.options.verbose, let detail = verdict.error?.detail { Terminal.warn("\(name): \(detail)") }
            throw CLIError("\(name): \(message)", status: .dataError)
        }
        return RenderSource(verdict: verdict, info: info, name: name)
    }

    /// Whether something is at `path` (a `PathBytes` carrier: its exact bytes).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return PathBytes.stat(path, &info) == 0
    }

    /// Reads to the end, refusing more than `limit` bytes (a pass is capped anyway).
    static func readAll(_ handle: FileHandle, limit: Int, what: String) throws -> [UInt8] {
        var out: [UInt8] = []
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw CLIError("\(what): cannot be read: \(error.localizedDescription)", status: .ioError)
            }
            if chunk.isEmpty { break }
            out += chunk
            if out.count > limit {
                throw CLIError("\(what): more than \(limit / (1024 * 1024)) MB, too large for a pass", status: .dataError)
            }
        }
        return out
    }

    /// The card's barcode area: the first barcode Wallet would show, as modules, or its message
    /// as text with the reason it cannot be drawn.
    var barcode: CardBarcode? { CardBarcodeSource.barcode(for: info) }
}
