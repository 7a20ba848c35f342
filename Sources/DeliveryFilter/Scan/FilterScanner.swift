import Conduit
import Foundation
import MailMIME
import PassStore
import Support
import WalletPass

/// The real scanner of `passconduit filter`: the conduit's PassScanner finds and verifies the
/// passes in the message (and asks the library about each), then `FilterLibraryEffects` stages
/// offers and applies updates. It runs inside the scan worker, so loading the trust anchors,
/// libmagic and the library counts against the deadline and dies with the worker.
///
/// A message without any part that could be a pass (no pass label, no part whose encoded body
/// starts like a zip — the two ways PassScanner picks candidates) is answered before any of that
/// is loaded: most mail has no pass, and the filter runs for every message.
package struct FilterScanner: FilterPassScanning {
    let options: FilterOptions
    let environment: [String: String]
    /// Opens the library (the executable's composition root decides which backend).
    let openLibrary: LibraryOpener
    /// False: the passes are found and verified but no library is opened, asked or written
    /// (a milter recipient without a library of their own gets headers only).
    let opensLibrary: Bool

    package init(options: FilterOptions, environment: [String: String], openLibrary: @escaping LibraryOpener, opensLibrary: Bool = true) {
        self.options = options
        self.environment = environment
        self.openLibrary = openLibrary
        self.opensLibrary = opensLibrary
    }

    /// The same settings every command uses (ConduitSetup): shipped anchors + config + `--trust`,
    /// config library unless `--library`, languages from config or locale.
    var setup: ConduitSetup {
        ConduitSetup(config: options.config, environment: environment,
                     libraryOverride: options.libraryPath, extraTrust: options.trustDirectories)
    }

    /// The library this scanner uses (`--library`, the config's, or the default path).
    package var libraryLocation: String { setup.libraryPath }

    package func scan(message bytes: [UInt8]) throws -> [FilterPassReport] {
        let limits = options.config.limits
        // Parsed once: the pre-check and the scan share it.
        let message = MIMEParser.parse(bytes, limits: limits.mime)
        guard Self.mayCarryPass(message) else { return [] }
        let setup = self.setup
        // A library that cannot be opened is a library error: what it does to the message is the
        // library-error policy's (`--on-library-error`), decided by the caller.
        let library: (any PassLibraryBackend)?
        do {
            var libraryOptions = FilterLibraryEffects.libraryOptions(deadlineSeconds: options.deadlineSeconds)
            if let user = options.libraryUser { libraryOptions.user = user }
            library = opensLibrary ? try openLibrary(setup.libraryPath, libraryOptions) : nil
        } catch let error as LibraryError where error.kind == .notFound {
            throw error   // a server without this user's library (the milter's map): headers only, not a failure
        } catch let error as LibraryError {
            throw Self.libraryError(error, "cannot use the library: ")
        } catch {
            throw FilterError(.libraryFailed, detail: "cannot use the library \(FilterLibraryNote.name(setup.libraryPath)): \(error)")
        }
        let scanner = try setup.scanner(library: library)
        let effects = FilterLibraryEffects(options: options)
        let found = scanner.scanMessage(message, source: PassSourceInfo(input: "-", message: 1))
        // A library that cannot say what it holds (busy past every retry, damaged) is the same
        // failure as one that cannot be opened — never an offer silently lost because the pass
        // looked like nothing.
        if let problem = found.lazy.compactMap(\.libraryProblem).first {
            throw Self.libraryError(problem, "the library could not say whether it holds a pass: ")
        }
        return try found.map { f in
            var action: FilterAction
            do {
                action = try effects.apply(status: f.verdict.status, state: f.library, record: f.record, library: library)
            } catch let error as LibraryError where error.kind == .refused {
                // This one pass is refused (a NUL in its serial number, say): one failed pass,
                // never a failed scan — the passes beside it are still offered.
                action = .refused
            } catch let error as LibraryError {
                // An offer or update the library could not take: a library error, never "nothing to do".
                throw Self.libraryError(error, "the library could not take a pass the filter found: ")
            } catch {
                throw FilterError(.libraryFailed, detail: "the library could not take a pass the filter found: \(error)")
            }
            return FilterPassReport(status: f.verdict.status, library: f.library,
                                    action: action,
                                    passTypeIdentifier: f.verdict.pass?.passTypeIdentifier,
                                    serialNumber: f.verdict.pass?.serialNumber,
                                    organizationName: f.verdict.pass?.organizationName,
                                    errorCode: f.verdict.error?.code.rawValue,
                                    sha256: f.verdict.sha256,
                                    missingLibrary: f.verdict.error.flatMap {
                                        $0.code == .libraryMissing ? NativeLibraryError.soname(inDetail: $0.detail) : nil
                                    })
        }
    }

    /// A library's failure as the filter's: `libraryUnavailable` for a server that is down,
    /// refuses the login or is read-only, `libraryFailed` for anything else. Library errors name
    /// the library without its password (PostgresLocation.display / LibraryLocation.withoutPassword).
    static func libraryError(_ error: LibraryError, _ prefix: String) -> FilterError {
        FilterError(error.kind == .unavailable ? .libraryUnavailable : .libraryFailed, detail: prefix + "\(error)")
    }

    /// A superset of PassScanner's candidate test: a leaf part with a pass label (type or name),
    /// an encoded body that starts like a zip, or a TNEF winmail.dat. Anything PassScanner can find passes this.
    package static func mayCarryPass(_ message: MIMEMessage) -> Bool {
        for part in message.parts where !part.isMultipart && !part.isEncapsulatedMessage {
            if !Detection.labels(mimeType: part.contentType.mimeType, names: PassScanner.names(of: part)).reasons.isEmpty { return true }
            if PassScanner.startsLikeZip(part, in: message) { return true }
            if PassScanner.isTNEF(part, in: message) { return true }   // a winmail.dat may hold one
        }
        return false
    }
}

/// "Scan these message bytes, do the library work, say what was found": the one thing the
/// delivery filter needs from the rest of Conduit. `FilterScanner` is the real one (PassScanner +
/// the library backend); tests may bring their own to exercise spooling, headers and deadlines.
package protocol FilterPassScanning {
    func scan(message: [UInt8]) throws -> [FilterPassReport]
}

/// Builds the scanner where the scan runs (in a scan worker the library is opened there, so a
/// lock or a slow disk counts against the deadline and dies with the worker).
package typealias FilterScannerFactory = @Sendable () throws -> any FilterPassScanning
