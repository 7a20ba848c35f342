#if canImport(Glibc)
import Glibc
#endif
import DeliveryFilter
import LibraryRoot
import Milter

/// `passconduit milter-worker [filter options]`, not listed in --help: the milter's scan worker.
/// Each request names the recipients' libraries before the message (`MilterScanRequest`), so one
/// worker serves every mailbox; offers and updates go to each. The daemon is multi-threaded, so
/// its scans run in these exec'd processes (ScanWorkerPool), killed at the deadline; the one-shot
/// `filter` scans in its own process instead (FilterScanGuard).
enum MilterWorkerCommand {
    static let name = "milter-worker"

    static func command(filterArguments: [String], environment: [String: String]) -> ScanWorkerPool.Command {
        .init(executable: executablePath(), arguments: [name] + filterArguments, environment: environment)
    }

    static func run(arguments: [String]) -> Never {
        let environment = FilterEnvironment.resolve(FilterCommand.currentEnvironment())
        let parsed = FilterArguments(arguments)
        var options = parsed.options
        _ = FilterConfiguration.apply(to: &options, explicit: parsed.explicit, environment: environment)
        let limit = options.maxScanBytes + MilterScanRequest.maxEnvelopeBytes
        let status = ScanWorkerPool.serve(fd: 0, maxMessageBytes: limit, alarmSeconds: options.deadlineSeconds) { request in
            guard let (libraries, message) = MilterScanRequest.decode(request) else {
                return .failure(FilterError(.scanFailed, detail: "malformed milter scan request"))
            }
            let scanner = FilterFault.wrap(MilterScanner(options: options, environment: environment, libraries: libraries,
                                                         openLibrary: LibraryRoot.opener,
                                                         openExistingLibrary: LibraryRoot.existingOpener), environment: environment)
            do {
                return .success(try scanner.scan(message: message))
            } catch {
                return .failure(FilterError.from(error))
            }
        }
        _exit(status)
    }

    /// This process's executable (`/proc/self/exe`), so the worker is the same build as the daemon.
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments.first ?? "passconduit" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
