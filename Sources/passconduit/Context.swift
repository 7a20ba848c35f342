import Conduit
import Support
import Foundation
import LibraryRoot
import PassStore
import WalletPass

/// Everything a command needs, built once from the global options and the config file:
/// the trust store, the pass opener, the library, the scanner.
struct Context {
    let options: GlobalOptions
    let config: Config
    let terminal: Terminal
    let environment: [String: String]

    init(_ options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.options = options
        self.environment = environment
        terminal = Terminal(options: options, environment: environment)
        do {
            config = try Config.load(explicitPath: options.config, environment: environment)
        } catch {
            throw CLIError("\(error)", status: .configError)
        }
    }

    var setup: ConduitSetup {
        ConduitSetup(config: config, environment: environment, libraryOverride: options.library,
                     extraTrust: options.trust, languageOverride: options.lang)
    }

    var limits: Limits { config.limits }

    /// The pass opener over the trust anchors. A folder that cannot be loaded is an error: a
    /// `--trust` folder is a missing input (66); one the config file names is a configuration
    /// error (78), as for any other broken setting. A `--trust` folder holding no certificate is
    /// warned about: every pass it was meant to vouch for would read "untrusted".
    /// `onPurpose`: the passes are ones a person chose to add (`add FILE`), whose bundles may
    /// hold as many passes as an archive holds entries (`PassLimits.forAddingOnPurpose`).
    func opener(onPurpose: Bool = false) throws -> PassOpener {
        let store: TrustStore
        do {
            store = try setup.trustStore()
        } catch let error as TrustStoreError {
            // Say what the path was for: "/x: no such file or folder" read like a missing input.
            let named = config.trustDirectories.contains { Self.path(error.path, isIn: $0) }
                && !options.trust.contains { Self.path(error.path, isIn: $0) }
            if named {
                let file = config.file.map { " named in \($0)" } ?? " named in the configuration"
                throw CLIError("cannot load the trust anchors\(file): \(error)", status: .configError)
            }
            throw CLIError("cannot load the trust anchors: \(error)", status: .noInput)
        } catch let error as NativeLibraryError {
            throw CLIError(error.message, status: .unavailable)
        } catch {
            throw CLIError("\(error)", status: .noInput)
        }
        for folder in options.trust where !store.files.contains(where: { Self.path($0, isIn: folder) }) {
            Terminal.warn("\(folder): no certificate (.pem, .crt, .cer, .der) in this trust folder; passes it should vouch for will read \"untrusted\"")
        }
        return PassOpener(trust: store, limits: onPurpose ? limits.pass.forAddingOnPurpose : limits.pass,
                          preferredLanguages: setup.preferredLanguages)
    }

    /// Whether `path` is `folder` itself or a file directly in it.
    static func path(_ path: String, isIn folder: String) -> Bool {
        var folder = folder
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        if path == folder { return true }
        guard let slash = path.lastIndex(of: "/") else { return false }
        return path[..<slash] == folder
    }

    var libraryPath: String { setup.libraryPath }

    /// The library `--library`, the config or the default names, opened by the composition root.
    /// `reading`: the command only reads (list, show, export, calendar, render, log, send, scan):
    /// nothing is created, a library that does not exist is a missing input (66), and a
    /// library file in a folder this user may not write still opens.
    func library(reading: Bool = false) throws -> any PassLibraryBackend {
        var libraryOptions = LibraryOptions()
        libraryOptions.user = try checkedUser()
        do {
            return reading ? try LibraryRoot.openForReadingBlocking(libraryPath, options: libraryOptions)
                           : try LibraryRoot.openBlocking(libraryPath, options: libraryOptions)
        } catch let error as LibraryError {
            throw CLIError(opening: error)
        } catch {
            throw CLIError("\(error)", status: .cannotCreate)
        }
    }

    /// `--user`, which names whose library on a PostgreSQL server. A library file belongs to the
    /// person who owns it: there `--user` is refused (64) unless it names that login, so
    /// `remove --user someone-else` can never act on one's own library by mistake.
    func checkedUser() throws -> String? {
        guard let user = options.user, !LibraryRoot.isServer(libraryPath) else { return options.user }
        let login = LibraryRoot.loginName
        guard user == login else {
            throw CLIError("--user \(user): the library \(libraryPath) is a file, which holds one person's passes (\(login.isEmpty ? "this login's" : login + "'s")); --user chooses whose library on a PostgreSQL server (--library postgresql://…)",
                           status: .usage)
        }
        return user
    }

    func scanner(library: (any PassLibraryBackend)?, onPurpose: Bool = false) throws -> PassScanner {
        let sniffer = setup.sniffer()
        if sniffer == nil && options.verbose { Terminal.warn("content detection without libmagic (it could not start)") }
        return PassScanner(opener: try opener(onPurpose: onPurpose), library: library, limits: limits, sniffer: sniffer)
    }

    /// Opens the library and resolves a command's ID argument in it: what show, export, icon and
    /// remove all start with.
    func libraryAndPass(_ text: String, reading: Bool = false) throws -> (library: any PassLibraryBackend, id: PassID) {
        let library = try library(reading: reading)
        return (library, try resolve(text, in: library))
    }

    /// The pass an ID argument named: the library, its id, what the library stores about it and
    /// its bytes (show, send).
    func namedPass(_ text: String) throws -> (library: any PassLibraryBackend, id: PassID, stored: StoredPass, bytes: [UInt8]) {
        let (library, passID) = try libraryAndPass(text, reading: true)
        let stored = try storedPass(passID, named: text, in: library)
        let bytes = try LibraryCall.run { try await library.export(passID) }
        return (library, passID, stored, bytes)
    }

    /// The stored pass an ID argument named, or a "no such pass" error naming the argument.
    func storedPass(_ id: PassID, named text: String, in library: any PassLibraryBackend) throws -> StoredPass {
        guard let stored = try LibraryCall.run({ try await library.pass(id) }) else {
            throw CLIError("\(text): no such pass in your library", status: .noInput)
        }
        return stored
    }

    /// "type/serial" (both parts non-empty), or 4 to 64 hex digits: the forms `PassLibrary.resolve` reads.
    static func isWellFormedID(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let slash = trimmed.firstIndex(of: "/") {
            return slash != trimmed.startIndex && trimmed.index(after: slash) != trimmed.endIndex
        }
        return (4...64).contains(trimmed.utf8.count) && trimmed.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0)
        }
    }

    /// Resolves "type/serial" or a short SHA-256 prefix to a pass in the library.
    /// An ID that is neither form is a usage error (64), like any other malformed argument; a
    /// well-formed ID that names no pass is a missing input (66).
    func resolve(_ text: String, in library: any PassLibraryBackend) throws -> PassID {
        if !Self.isWellFormedID(text) {
            throw CLIError("“\(text)” is not a pass ID: give passTypeIdentifier/serialNumber or at least 4 hex digits of its SHA-256 (see: passconduit list)", status: .usage)
        }
        do {
            return try Blocking.run { try await library.resolve(text) }
        } catch let error as LibraryError {
            throw CLIError(error)
        }
    }
}
