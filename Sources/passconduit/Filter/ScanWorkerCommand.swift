#if canImport(Glibc)
import Glibc
#endif
import DeliveryFilter
import LibraryRoot

/// `passconduit scan-worker [filter options]`, not listed in --help: a scan worker for
/// `ScanWorkerPool`. Messages come on fd 0 (a socket), reports go back on it; the options resolve
/// as `passconduit filter`'s do (arguments, then the configuration file), so the worker scans with
/// the settings of the filter that started it. Exits when the socket closes.
enum ScanWorkerCommand {
    static let name = "scan-worker"

    /// The pool `passconduit filter` scans in: this executable as its one worker.
    static func pool(arguments: [String], environment: [String: String],
                     busyChanged: @escaping @Sendable (Int32) -> Void) -> ScanWorkerPool {
        ScanWorkerPool(command: .init(executable: executablePath(), arguments: [name] + arguments, environment: environment),
                       maxIdle: 1, busyChanged: busyChanged)
    }

    static func run(arguments: [String]) -> Never {
        let environment = FilterEnvironment.resolve(FilterCommand.currentEnvironment())
        let parsed = FilterArguments(arguments)
        var options = parsed.options
        // The filter resolved the same arguments and configuration and scans only when both are sound.
        _ = FilterConfiguration.apply(to: &options, explicit: parsed.explicit, environment: environment)
        let scanner = FilterFault.wrap(FilterScanner(options: options, environment: environment, openLibrary: LibraryRoot.opener), environment: environment)
        let status = ScanWorkerPool.serve(fd: 0, maxMessageBytes: options.maxScanBytes, alarmSeconds: options.deadlineSeconds) { message in
            do {
                return .success(try scanner.scan(message: message))
            } catch {
                return .failure(FilterError.from(error))
            }
        }
        _exit(status)
    }

    /// This process's executable (`/proc/self/exe`), so the worker is the same build as the filter.
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments.first ?? "passconduit" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
