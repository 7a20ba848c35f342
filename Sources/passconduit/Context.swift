import Conduit
import Foundation
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

    func opener() throws -> PassOpener {
        do {
            return try setup.opener()
        } catch let error as TrustStoreError {
            // Say what the path was for: "/x: no such file or folder" read like a missing input.
            throw CLIError("cannot load the trust anchors: \(error)", status: .noInput)
        } catch {
            throw CLIError("\(error)", status: .noInput)
        }
    }

    var libraryPath: String { setup.libraryPath }

    func library() throws -> PassLibrary {
        do {
            return try PassLibrary(path: libraryPath)
        } catch {
            throw CLIError("\(error)", status: .cannotCreate)
        }
    }

    func scanner(library: PassLibrary?) throws -> PassScanner {
        let sniffer = setup.sniffer()
        if sniffer == nil && options.verbose { Terminal.warn("content detection without libmagic (it could not start)") }
        return PassScanner(opener: try opener(), library: library, limits: limits, sniffer: sniffer)
    }

    /// Opens the library and resolves a command's ID argument in it: what show, export, icon and
    /// remove all start with.
    func libraryAndPass(_ text: String) throws -> (library: PassLibrary, id: PassID) {
        let library = try library()
        return (library, try resolve(text, in: library))
    }

    /// The stored pass an ID argument named, or a "no such pass" error naming the argument.
    func storedPass(_ id: PassID, named text: String, in library: PassLibrary) throws -> StoredPass {
        guard let stored = try LibraryCall.run({ try library.pass(id) }) else {
            throw CLIError("\(text): no such pass in your library", status: .noInput)
        }
        return stored
    }

    /// Resolves "type/serial" or a short SHA-256 prefix to a pass in the library.
    func resolve(_ text: String, in library: PassLibrary) throws -> PassID {
        do {
            return try library.resolve(text)
        } catch let error as LibraryError {
            throw CLIError(error.description, status: error.kind == .ambiguousID ? .usage : .noInput)
        }
    }
}
