#if canImport(Glibc)
import Glibc
#endif
import DeliveryFilter
import LibraryRoot
import Milter
import Support

/// `passconduit milter-worker [filter options]`, not listed in --help: the milter's scan worker.
/// Each request names the recipients' libraries before the message (`MilterScanRequest`), so one
/// worker serves every mailbox; offers and updates go to each. The daemon is multi-threaded, so
/// its scans run in these exec'd processes (ScanWorkerPool), killed at the deadline; the one-shot
/// `filter` scans in its own process instead (FilterScanGuard).
enum MilterWorkerCommand {
    static let name = "milter-worker"

    static func command(filterArguments: [String], environment: [String: String]) -> ScanWorkerPool.Command {
        if let fd = executableDescriptor {
            return .init(executable: "/proc/self/fd/\(fd)", arguments: [name] + filterArguments, environment: environment,
                         argv0: startPath)
        }
        return .init(executable: executablePath(), arguments: [name] + filterArguments, environment: environment)
    }

    /// The daemon's own executable, opened once at start (`openExecutable`) and kept open for its
    /// life: an upgrade replaces the file (a new one renamed over it), and `/proc/self/exe` then
    /// names "…/passconduit (deleted)", which cannot be started. Workers exec this descriptor
    /// (`/proc/self/fd/N`: the child inherits it until exec, the kernel opens it before closing
    /// close-on-exec descriptors), so they stay the daemon's own build until it is restarted.
    nonisolated(unsafe) private static var executableDescriptor: Int32?
    nonisolated(unsafe) private static var startPath: String?

    /// Opens the executable for `command` (call once, at the daemon's start).
    static func openExecutable() {
        guard executableDescriptor == nil else { return }
        startPath = executablePath()
        let fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        if fd >= 0 { executableDescriptor = fd }
    }

    static func run(arguments: [String]) -> Never {
        let environment = FilterEnvironment.resolve(FilterCommand.currentEnvironment())
        let parsed = FilterArguments(arguments)
        var options = parsed.options
        _ = FilterConfiguration.apply(to: &options, explicit: parsed.explicit, environment: environment)
        let limit = options.maxScanBytes + MilterScanRequest.maxEnvelopeBytes
        let problem = ScanWorkerPool.serve(fd: 0, maxMessageBytes: limit, alarmSeconds: options.deadlineSeconds, scanNoted: { request in
            guard let (libraries, shared, message) = MilterScanRequest.decodeShared(request) else {
                return .failure(FilterError(.scanFailed, detail: "malformed milter scan request"))
            }
            let scanner = MilterScanner(options: options, environment: environment, libraries: libraries, sharedLibrary: shared,
                                        openLibrary: LibraryRoot.opener, openExistingLibrary: LibraryRoot.existingOpener)
            do {
                if FilterFault.isSet(environment) {
                    // The tests' injected faults (crash, hang, error, slow) around the same scan.
                    let faulty = FilterFault.wrap(scanner, environment: environment)
                    return .success((try faulty.scan(message: message), []))
                }
                return .success(try scanner.scanNoted(message: message))
            } catch {
                return .failure(FilterError.from(error))
            }
        })
        _exit(problem.map { ExitStatus($0.code) }?.rawValue ?? ExitStatus.success.rawValue)
    }

    /// This process's executable (`/proc/self/exe`), so the worker is the same build as the daemon.
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments.first ?? "passconduit" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
