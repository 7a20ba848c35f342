#if canImport(Glibc)
import Glibc
#endif
import Conduit
import DeliveryFilter
import Foundation
import Support
import PassStore

/// `passconduit filter … --check`: what an administrator runs once with a recipe's command line.
/// The filter itself never refuses a message over a bad option or config (it passes the message
/// through unscanned and logs why); the check says it out loud and exits non-zero:
/// 64 for an option it does not understand, 78 for a config file or trust folder that cannot be
/// used, 0 when the same command line would scan mail. It reads no message.
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
            FileHandle.standardError.write(Data("passconduit filter --check: mail would pass through unscanned\n".utf8))
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
        report.config = options.configPath ?? ConfigLocation.defaultConfigPath(environment: environment)
            .flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        if let problem = FilterConfiguration.apply(to: &options, explicit: parsed.explicit, environment: environment) {
            report.problems.append(problem.detail)
            if report.status == .success { report.status = .configError }
        }
        let setup = ConduitSetup(config: options.config, environment: environment,
                                 libraryOverride: options.libraryPath, extraTrust: options.trustDirectories)
        report.library = LibraryLocation.withoutPassword(setup.libraryPath)
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
        switch options.log {
        case .file: report.log = "file " + (FilterLog(destination: .file, environment: environment).path ?? "(no state folder)")
        case .syslog: report.log = "syslog (facility mail)"
        case .none: report.log = "none"
        }
        return report
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
