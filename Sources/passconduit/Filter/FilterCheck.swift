#if canImport(Glibc)
import Glibc
#endif
import Conduit
import DeliveryFilter
import Foundation
import LibraryRoot
import Support
import PassStore

/// `passconduit filter … --check`: what an administrator runs once with a recipe's command line.
/// The filter itself never refuses a message over a bad option or config (it passes the message
/// through unscanned and logs why); the check says it out loud and exits non-zero:
/// 64 for an option it does not understand, 78 for a config file or trust folder that cannot be
/// used, 73 for a library that cannot be opened or created, 75 for a library server that is down
/// or refuses the login, 0 when the same command line would scan mail. It reads no message.
enum FilterCheck {
    struct Report {
        var status: ExitStatus = .success
        var problems: [String] = []
        var config: String?
        var library: String?
        var trust: [String] = []
        var log: String = ""
    }

    static func run(_ parsed: FilterArguments, environment: [String: String]) -> Never {
        let report = check(parsed, environment: environment)
        if parsed.json {
            print(json(report))
        } else if report.problems.isEmpty {
            print("passconduit filter --check: ok, this command line scans mail")
            print("  config   \(report.config ?? "none (defaults)")")
            print("  library  \(report.library ?? "-")")
            print("  trust    \(report.trust.isEmpty ? "-" : report.trust.joined(separator: ", "))")
            print("  log      \(report.log)")
        } else {
            for problem in report.problems {
                FileHandle.standardError.write(Data("passconduit filter --check: \(problem)\n".utf8))
            }
            // Only a library problem: the passes are still verified and announced, but not offered.
            let libraryOnly = report.status == .cannotCreate || report.status == .tempFailure
            let outcome = libraryOnly ? "mail would be delivered without its offers (or held for a retry with --on-library-error tempfail)"
                                      : "mail would pass through unscanned"
            FileHandle.standardError.write(Data("passconduit filter --check: \(outcome)\n".utf8))
        }
        fflush(nil)
        exit(report.status.rawValue)
    }

    static func check(_ parsed: FilterArguments, environment: [String: String]) -> Report {
        var report = Report()
        var options = parsed.options
        if !parsed.problems.isEmpty {
            report.problems += parsed.problems
            report.status = .usage
        }
        report.config = options.configPath ?? ConfigLocation.configPathInUse(environment: environment)
        if let problem = FilterConfiguration.apply(to: &options, explicit: parsed.explicit, environment: environment) {
            report.problems.append(problem.detail)
            if report.status == .success { report.status = .configError }
        }
        let setup = ConduitSetup(config: options.config, environment: environment,
                                 libraryOverride: options.libraryPath, extraTrust: options.trustDirectories)
        report.library = options.opensLibrary ? LibraryLocation.withoutPassword(setup.libraryPath) : nil
        report.trust = setup.trustDirectories
        // Every library a scan may load on first use: missing, each would leave mail unscanned.
        let missing = NativeLibraries.problems(NativeLibraries.scanning)
        if !missing.isEmpty {
            report.problems += missing
            if report.status == .success { report.status = .unavailable }
        }
        do {
            _ = try setup.trustStore()
        } catch let error as NativeLibraryError where missing.contains(error.message) {
            // Already said above.
        } catch {
            report.problems.append("cannot load the trust anchors: \(error)")
            if report.status == .success { report.status = .configError }
        }
        if options.opensLibrary, let problem = libraryProblem(setup.libraryPath, user: options.libraryUser) {
            report.problems.append(problem.text)
            if report.status == .success { report.status = problem.status }
        }
        switch options.log {
        case .file: report.log = "file " + (FilterLog(destination: .file, environment: environment).path ?? "(no state folder)")
        case .syslog: report.log = "syslog (facility mail)"
        case .none: report.log = "none"
        }
        return report
    }

    /// Whether the filter could use the library: a file library is opened if it exists, or its
    /// folder must be one the filter can create it in; a server must answer and take the login
    /// (a user it holds no library for yet is fine: the first offer creates it). The sentence
    /// names the library without its password.
    static func libraryProblem(_ location: String, user: String?) -> (text: String, status: ExitStatus)? {
        let shown = LibraryLocation.withoutPassword(location)
        var options = LibraryOptions()
        options.busyTimeout = 2
        options.retryDeadline = 5
        if let user { options.user = user }
        if !LibraryRoot.isServer(location) {
            var st = stat()
            if stat(location, &st) != 0 {
                // The filter creates the file (and its folders) on the first offer: the nearest
                // existing folder must be writable and searchable by this user.
                var folder = (location as NSString).deletingLastPathComponent
                while !folder.isEmpty, stat(folder, &st) != 0 { folder = (folder as NSString).deletingLastPathComponent }
                if folder.isEmpty { folder = "." }
                // A file made and removed there says it, for root too (access(2) would not).
                var probe = Array((folder + "/.passconduit-check-XXXXXX").utf8CString)
                let fd = (st.st_mode & S_IFMT) == S_IFDIR ? mkstemp(&probe) : -1
                guard fd >= 0 else {
                    return ("cannot create the library \(shown): \(folder) is not a folder this user can write", .cannotCreate)
                }
                close(fd)
                _ = probe.withUnsafeBufferPointer { unlink($0.baseAddress!) }
                return nil
            }
            guard access(location, R_OK | W_OK) == 0 else {
                return ("cannot write the library \(shown): \(String(cString: strerror(errno)))", .cannotCreate)
            }
        }
        do {
            _ = try LibraryRoot.openBlocking(location, options: options, create: false)
            return nil
        } catch let error as LibraryError where error.kind == .notFound && LibraryRoot.isServer(location) {
            return nil
        } catch let error as LibraryError {
            return ("cannot use the library: \(error)", error.kind == .unavailable || error.kind == .busy ? .tempFailure : .cannotCreate)
        } catch {
            return ("cannot use the library \(shown): \(error)", .cannotCreate)
        }
    }

    static func json(_ report: Report) -> String {
        func string(_ s: String?) -> String {
            guard let s else { return "null" }
            let data = (try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
            return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
        }
        let fields = [
            "\"schema\":1", "\"ok\":\(report.problems.isEmpty)", "\"status\":\(report.status.rawValue)",
            "\"problems\":[\(report.problems.map { string($0) }.joined(separator: ","))]",
            "\"config\":\(string(report.config))", "\"library\":\(string(report.library))",
            "\"trust\":[\(report.trust.map { string($0) }.joined(separator: ","))]", "\"log\":\(string(report.log))",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }
}
