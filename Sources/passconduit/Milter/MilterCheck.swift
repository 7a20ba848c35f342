#if canImport(Glibc)
import Glibc
#endif
import Conduit
import DeliveryFilter
import Foundation
import Milter
import PassStore
import Support

/// `passconduit milter … --check`: for a unit's ExecStartPre and ExecReload. With the daemon's
/// own command line it checks what the daemon would start with — the configuration (already
/// read: a broken one exited 78 before this), the trust anchors, the library map, the socket's
/// folder, the system libraries a scan loads, and one library (the shared one, or the map's server
/// or folder) — prints one line per item, and exits 0 when all is well, 69 for a missing system
/// library, 78 for a configuration or trust problem, 73 for a
/// library or socket folder that cannot be used, 75 for a library server that is down or refuses
/// the login. It listens on nothing (a running daemon holds the address) and reads no mail.
enum MilterCheck {
    static func run(settings: MilterSettings, address: MilterAddress) -> ExitStatus {
        var status = ExitStatus.success
        var problems: [String] = []
        func fail(_ text: String, _ code: ExitStatus) {
            problems.append(text)
            if status == .success { status = code }
        }
        let options = settings.filter
        let setup = ConduitSetup(config: options.config, environment: settings.environment,
                                 libraryOverride: options.libraryPath, extraTrust: options.trustDirectories)
        // Every system library a scan worker loads on first use (69 when one is missing).
        let missing = NativeLibraries.problems(NativeLibraries.scanning)
        for problem in missing { fail(problem, .unavailable) }
        do {
            _ = try setup.trustStore()
        } catch let error as NativeLibraryError where missing.contains(error.message) {
            // Already said above.
        } catch {
            fail("cannot load the trust anchors: \(error)", .configError)
        }
        if case .unix(let path) = address {
            let folder = (path as NSString).deletingLastPathComponent
            var st = stat()
            if stat(folder, &st) != 0 || (st.st_mode & S_IFMT) != S_IFDIR {
                fail("cannot listen on \(address): the folder \(folder) does not exist", .cannotCreate)
            } else if access(folder, W_OK | X_OK) != 0 {
                fail("cannot listen on \(address): this user cannot create a socket in \(folder)", .cannotCreate)
            }
        }
        let map: String
        switch settings.libraryMap {
        case .headersOnly:
            map = "none (headers only)"
        case .shared(let path):
            map = "one library for every recipient: \(LibraryLocation.withoutPassword(path))"
            if let problem = FilterCheck.libraryProblem(path, user: nil) { fail(problem.text, problem.status) }
        case .template(let template):
            map = LibraryLocation.withoutPassword(template)
            if LibraryMap.isServer(template) {
                // The server must answer and take the login; a user it holds no library for is fine.
                if let problem = FilterCheck.libraryProblem(template, user: "passconduit-check@invalid") { fail(problem.text, problem.status) }
            } else {
                let fixed = String(template[..<(template.range(of: "%{")?.lowerBound ?? template.endIndex)])
                let folder = fixed.hasSuffix("/") ? String(fixed.dropLast()) : (fixed as NSString).deletingLastPathComponent
                var st = stat()
                if stat(folder.isEmpty ? "/" : folder, &st) != 0 || (st.st_mode & S_IFMT) != S_IFDIR {
                    fail("the library map's folder \(folder) does not exist", .cannotCreate)
                } else if access(folder.isEmpty ? "/" : folder, R_OK | X_OK) != 0 {
                    fail("this user cannot read the library map's folder \(folder)", .cannotCreate)
                }
            }
        }
        if problems.isEmpty {
            print("passconduit milter --check: ok")
            print("  listen       \(address)")
            print("  config       \(options.config.file ?? "none (defaults)")")
            print("  library-map  \(map)")
            print("  trust        \(setup.trustDirectories.isEmpty ? "-" : setup.trustDirectories.joined(separator: ", "))")
        } else {
            for problem in problems { MilterCommand.say("passconduit milter --check: \(problem)") }
        }
        fflush(nil)
        return status
    }
}
