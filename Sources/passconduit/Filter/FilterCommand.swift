#if canImport(Glibc)
import Glibc
#endif
import Conduit
import DeliveryFilter
import Foundation
import LibraryRoot
import PassStore
import Synchronization

/// `passconduit filter` as a process: stdin -> stdout, exit 0 with the complete message or exit 75
/// with nothing — for every argument, configuration, input, scanner failure or signal.
enum FilterCommand {
    /// `passconduit filter` bypasses ArgumentParser's own exit codes: a delivery filter may only
    /// ever exit 0 (complete message written) or 75 (nothing written, the MTA retries). See
    /// DESIGN.md, "The delivery-filter contract".
    static func run(arguments: [String]) -> Never {
        let rawEnvironment = currentEnvironment()
        FilterSignals.install()
        let started = Date()
        let missing = occupyClosedStandardDescriptors()
        let parsed = FilterArguments(arguments)
        if parsed.wantsCheck { FilterCheck.run(parsed, environment: FilterEnvironment.resolve(rawEnvironment)) }
        if parsed.wantsHelp {
            // A person asked: the usage, never a wait for a message. Where neither end is a terminal it may be
            // a mail host with a mistyped recipe, so the text goes to stderr and the host keeps the message (75).
            let person = isatty(0) == 1 || isatty(1) == 1
            writeAll(person ? 1 : 2, Array((FilterArguments.usage + "\n").utf8))
            _exit(person ? 0 : ExitStatus.tempFailure.rawValue)
        }
        if isatty(0) == 1 {
            // A person at a terminal, not a mail host: never wait for a message that is not coming.
            writeAll(2, Array((FilterArguments.usage + "\n").utf8))
            _exit(ExitStatus.tempFailure.rawValue)
        }
        let environment = FilterEnvironment.resolve(rawEnvironment)
        var options = parsed.options
        let configProblem = FilterConfiguration.apply(to: &options, explicit: parsed.explicit, environment: environment)
        var log = FilterLog(destination: options.log, environment: environment)
        if options.verbose {
            log.verbose = true
            log.libraryPath = ConduitSetup(config: options.config, environment: environment,
                                           libraryOverride: options.libraryPath, extraTrust: options.trustDirectories).libraryPath
        }

        let spool = FilterSpool()
        do {
            try spool.readToEnd(from: 0, temporaryDirectory: environment["TMPDIR"])
        } catch {
            var plan = FilterPlan(byteCount: spool.byteCount)
            plan.output = .nothing
            plan.error = .from(error, .spoolFailed)
            finish(plan, log: log, started: started, wrote: false)
        }

        let filter = DeliveryFilter(options: options)
        var plan: FilterPlan
        if missing.contains(0) || missing.contains(1) {
            // No stdin means no message; no stdout means nowhere to put it: either way the host must retry.
            plan = FilterPlan(byteCount: spool.byteCount)
            plan.error = FilterError(missing.contains(0) ? .inputFailed : .outputFailed, detail: "file descriptor \(missing.contains(0) ? 0 : 1) is not open")
            plan.output = .nothing
            finish(plan, log: log, started: started, wrote: false)
        }
        if let problem = parsed.problems.first.map({ FilterError(.badArgument, detail: $0) }) ?? configProblem {
            plan = FilterPlan(byteCount: spool.byteCount)
            // The log says outright that the message went through unscanned, and why
            // ("not scanned: unknown option --x"); `filter --check` says the same to an administrator.
            plan.error = FilterError(problem.code, detail: "not scanned: " + problem.detail)
            plan.output = .nothing
            if !options.failClosed { plan = filter.unscanned(plan, spool) }
        } else {
            var libraries: [FilterLibraryNote] = []
            plan = filter.plan(spool) { message in
                scanGuarded(message, filter: filter, environment: environment, log: log, libraries: &libraries)
            }
            plan.libraries = libraries
        }
        if plan.output == .nothing { finish(plan, log: log, started: started, wrote: false) }

        FilterSignals.beginOutput()
        var wrote = true
        do {
            try filter.write(plan, spool) { try writeOutput($0) }
        } catch {
            wrote = false
            plan.error = .from(error, .outputFailed)
        }
        finish(plan, log: log, started: started, wrote: wrote)
    }

    /// The scan, in this process under `FilterScanGuard` (a crash or the deadline passes the
    /// message unchanged, or 75 with --fail-closed). Most mail has no part that could be a pass:
    /// the scanner answers those from one MIME parse, before trust anchors, libmagic or the
    /// library are touched.
    private static func scanGuarded(_ message: [UInt8], filter: DeliveryFilter, environment: [String: String],
                                     log: FilterLog, libraries: inout [FilterLibraryNote]) -> Result<[FilterPassReport], FilterError> {
        let options = filter.options
        // The library stays open until the process ends (_exit): closing it (GRDB's queue and
        // observers, SQLite's close) only costs time, and each commit is already durable.
        let openLibrary: LibraryOpener = { location, libraryOptions in
            let library = try LibraryRoot.opener(location, libraryOptions)
            keptOpen.withLock { $0.append(library) }
            return library
        }
        let real = FilterScanner(options: options, environment: environment, openLibrary: openLibrary, opensLibrary: options.opensLibrary)
        let scanner = FilterFault.wrap(real, environment: environment)
        var noted: [FilterLibraryNote] = []
        defer { libraries = noted }
        // What the guard delivers at the deadline or on a crash: the message without forged fields of our names.
        return FilterScanGuard.run(message: filter.unscannedBytes(message), deadlineSeconds: options.deadlineSeconds, failClosed: options.failClosed,
                                   logPath: log.destination == .file ? log.path : nil,
                                   logHead: { result in logHead(log, byteCount: message.count, failClosed: result == "tempfail") }) {
            do {
                return .success(try scanner.scan(message: message))
            } catch let error as FilterError where error.isLibraryError && !options.tempfailsOnLibraryError {
                // --on-library-error accept: the library's failure goes to the log, and the message
                // gets the headers a mailbox without a library gets (its passes still verified).
                noted.append(FilterLibraryNote(library: FilterLibraryNote.name(real.libraryLocation, user: options.libraryUser),
                                               outcome: "", error: error))
                do {
                    return .success(try FilterScanner(options: options, environment: environment, openLibrary: openLibrary,
                                                      opensLibrary: false).scan(message: message))
                } catch {
                    return .failure(FilterError.from(error))
                }
            } catch let error as FilterError {
                return .failure(error)
            } catch {
                return .failure(FilterError(.scanFailed, detail: String(describing: error)))
            }
        }
    }

    private static let keptOpen = Mutex<[any PassLibraryBackend]>([])

    /// The log line of a message that passes unscanned (or not at all), up to its error: what
    /// `FilterLog.line` writes, without the elapsed time the guard's handler adds.
    private static func logHead(_ log: FilterLog, byteCount: Int, failClosed: Bool) -> String {
        var plan = FilterPlan(byteCount: byteCount)
        plan.output = failClosed ? .nothing : .unchanged
        let line = FilterLog.line(for: plan, elapsed: 0, wroteOutput: !failClosed)
        return line.hasSuffix(" ms=0.0") ? String(line.dropLast(7)) : line
    }

    /// A host may start the filter with fd 0, 1 or 2 closed. Each closed one gets /dev/null, so no
    /// file the filter opens (the spool!) can become "stdout"; the caller treats a closed 0 or 1 as
    /// a temporary failure.
    private static func occupyClosedStandardDescriptors() -> Set<Int32> {
        var missing: Set<Int32> = []
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            missing.insert(fd)
            let null = open("/dev/null", O_RDWR)
            if null >= 0 && null != fd { dup2(null, fd); close(null) }
        }
        return missing
    }

    /// Logs and exits: 0 when the message was written, 75 otherwise (with one `4.3.0` line on
    /// stderr, the only stderr output a filter may make, and only when it fails).
    private static func finish(_ plan: FilterPlan, log: FilterLog, started: Date, wrote: Bool) -> Never {
        log.record(plan, elapsed: Date().timeIntervalSince(started), wroteOutput: wrote)
        if wrote && plan.output != .nothing { _exit(ExitStatus.success.rawValue) }
        let reason = plan.error.map { "\($0.code.rawValue): \($0.detail)" } ?? "temporary failure"
        let line = "4.3.0 passconduit filter: " + String(reason.unicodeScalars.prefix(200).map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }) + "\n"
        writeAll(2, Array(line.utf8))
        _exit(ExitStatus.tempFailure.rawValue)
    }

    /// write(2) all of `bytes` to stdout, waiting if stdout is non-blocking and full.
    private static func writeOutput(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            // baseAddress is non-nil: count > done >= 0.
            let n = write(1, bytes.baseAddress! + done, bytes.count - done)
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                var p = pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 1000)
                continue
            }
            throw FilterError(.outputFailed, detail: "write(stdout): \(FilterSpool.describe(n < 0 ? errno : EIO))")
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            // baseAddress is non-nil and `done` within the buffer: the loop runs only while count > done >= 0.
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }

    /// The process environment read straight from `environ` (cheaper at start-up than
    /// Foundation's ProcessInfo, which the filter does not otherwise need on its fast path).
    static func currentEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            // Split at the first '=' byte, as getenv does (a character-wise search on the String
            // cost a quarter of a million instructions per start for a 40-variable environment).
            if let eq = strchr(entry, 0x3D) {
                let key = String(decoding: UnsafeRawBufferPointer(start: entry, count: eq - entry), as: UTF8.self)
                if env[key] == nil { env[key] = String(cString: eq + 1) }   // first one wins, like getenv
            }
            p += 1
        }
        return env
    }
}
