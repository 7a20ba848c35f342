#if canImport(Glibc)
import Glibc
#endif
import Conduit
import Foundation
import PassStore
import Support

/// One line per message: to `$XDG_STATE_HOME/passconduit/filter.log` (created 0700/0600, appended
/// with one write(2) so parallel filters do not interleave), or to syslog facility `mail`. Never
/// to stdout or stderr, and a failure to log never affects the message. Lines carry no addresses
/// or subjects (STYLE.md: logs omit them), only counts, pass types, serials' digests and outcomes.
package struct FilterLog: Sendable {
    package var destination: FilterLogDestination
    package var path: String?
    /// `--verbose`: each pass's error code, and this library path, are added to the line.
    package var verbose = false
    package var libraryPath: String?
    /// With `syslog`: write the lines to standard error instead (a daemon whose syslog socket is
    /// missing; glibc's syslog(3) would drop every line without a word). Never set for the filter,
    /// whose standard error stays silent.
    package var syslogToStandardError = false
    /// The log is rotated (to filter.log.1) past this size, so a busy mailbox cannot fill the disk.
    package static let rotateBytes = 4 << 20

    package init(destination: FilterLogDestination, environment: [String: String]) {
        self.destination = destination
        self.path = ConfigLocation.stateDirectory(environment: environment).map { $0 + "/filter.log" }
    }

    package func record(_ plan: FilterPlan, elapsed: Double, wroteOutput: Bool) {
        guard destination != .none else { return }
        var line = Self.line(for: plan, elapsed: elapsed, wroteOutput: wroteOutput, verbose: verbose)
        if verbose, let libraryPath { line += " library=\"\(Self.printable(LibraryLocation.withoutPassword(libraryPath)))\"" }
        record(line)
    }

    package func record(_ line: String) {
        let line = Self.oneLine(line)
        switch destination {
        case .none: return
        case .syslog:
            if syslogToStandardError {
                let bytes = Array((line + "\n").utf8)
                _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
                return
            }
            "passconduit".withCString { ident in
                openlog(ident, LOG_PID, LOG_MAIL)
                // A C string pointer is a CVarArg everywhere; a Swift String is not one on Linux.
                line.withCString { text in withVaList([text]) { vsyslog(LOG_INFO, "%s", $0) } }
                closelog()
            }
        case .file:
            guard let path else { return }
            let flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
            var fd = open(path, flags, 0o600)
            if fd < 0 && errno == ENOENT {
                // The folder is made only when it is missing: a daemon's line per message costs
                // one open, not a mkdir per path component before it.
                makeDirectories((path as NSString).deletingLastPathComponent)
                fd = open(path, flags, 0o600)
            }
            guard fd >= 0 else { return }
            var st = stat()
            if fstat(fd, &st) == 0, Int(st.st_size) >= Self.rotateBytes {
                // One old generation is kept: filter.log.1. A concurrent filter may still append
                // to the renamed file; no line is lost either way.
                _ = rename(path, path + ".1")
                close(fd)
                fd = open(path, flags, 0o600)
                guard fd >= 0 else { return }
            }
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
    }

    /// `2026-11-21T12:00:00Z pid=1 result=headers bytes=1234 passes="2 passes (1 new, 1 update)" …`
    package static func line(for plan: FilterPlan, elapsed: Double, wroteOutput: Bool, verbose: Bool = false) -> String {
        var parts = [timestamp(), "pid=\(getpid())"]
        let result: String
        switch plan.output {
        case .nothing: result = "tempfail"
        case .unchanged: result = "unchanged"
        case .rewritten: result = "headers"
        }
        parts.append("result=\(wroteOutput || plan.output == .nothing ? result : "output-failed")")
        parts.append("bytes=\(plan.byteCount)")
        if plan.oversize { parts.append("scan=skipped-oversize") }
        if plan.notice { parts.append("scan=skipped-notice") }
        if !plan.reports.isEmpty {
            parts.append("passes=\"\(FilterHeaderWriter().summary(plan.reports))\"")
            for r in plan.reports.prefix(32) {
                let id = [r.passTypeIdentifier ?? "-", r.sha256.map { String($0.prefix(12)) } ?? "-"].joined(separator: ",")
                parts.append("pass=\(r.category)/\(r.action.rawValue)/\(printable(id))"
                             + (verbose ? "/\(printable(r.errorCode ?? "-"))" : ""))
            }
            // What to install so these passes can be checked: each missing library once.
            var named: Set<String> = []
            for r in plan.reports where r.unchecked {
                let soname = r.missingLibrary ?? "a system library"
                guard named.insert(soname).inserted else { continue }
                parts.append("library-missing=\"\(printable(NativeLibraryError.described(soname: soname)))\"")
            }
        }
        if let e = plan.error { parts.append("error=\(e.code.rawValue) detail=\"\(printable(e.detail))\"") }
        for note in plan.libraries.prefix(64) { parts.append(note.logText) }
        let tenths = Int((elapsed * 10_000).rounded())   // milliseconds with one decimal, without Foundation's formatter
        parts.append("ms=\(tenths / 10).\(tenths % 10)")
        // Not `joined(separator:)`: its first use costs a scan of the runtime's conformance
        // records (~0.5 M instructions in the static binary), at every start of the filter.
        var line = ""
        for i in parts.indices {
            if i > 0 { line += " " }
            line += parts[i]
        }
        return line
    }

    /// `2026-11-21T12:00:00Z pid=1 ` + `text`: a line that is not about one message (a daemon's
    /// start, stop, reload), in the same shape as the message lines.
    package static func timestampedLine(_ text: String) -> String {
        "\(timestamp()) pid=\(getpid()) \(text)"
    }

    /// The longest line written, in Unicode scalars (a line naming 64 libraries fits).
    package static let maxLineScalars = 16_384

    /// `line` as one line of the log, whatever an error message put into it: control characters
    /// (a newline, a CR, a tab, an escape) become "?", and a line longer than `maxLineScalars`
    /// is cut on a character boundary and ends "…". A line that is already fine comes back as it was.
    package static func oneLine(_ line: String) -> String {
        func control(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) }
        if line.utf8.count <= maxLineScalars && !line.unicodeScalars.contains(where: control) { return line }
        var out = String.UnicodeScalarView()
        var count = 0
        for character in line {
            let scalars = character.unicodeScalars
            if count + scalars.count > maxLineScalars - 1 { out.append("…"); break }
            for scalar in scalars { out.append(control(scalar) ? "?" : scalar) }
            count += scalars.count
        }
        return String(out)
    }

    /// Why this log cannot be written (its folder cannot be made, or the file opened for
    /// appending), or nil when it can or goes elsewhere. Nothing is written to it.
    package func problem() -> String? {
        guard destination == .file else { return nil }
        guard let path else { return "there is no state folder for the log (set XDG_STATE_HOME or HOME, or give --log syslog)" }
        makeDirectories((path as NSString).deletingLastPathComponent)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else { return "cannot write the log file \(path): \(String(cString: strerror(errno)))" }
        close(fd)
        return nil
    }

    /// The socket syslog(3) writes to; `PASSCONDUIT_SYSLOG_SOCKET` stands for it in tests only.
    package static func syslogSocket(environment: [String: String]) -> String {
        if let path = environment["PASSCONDUIT_SYSLOG_SOCKET"], path.hasPrefix("/") { return path }
        return "/dev/log"
    }

    /// Why syslog(3) cannot deliver a line (no daemon listens on its socket: glibc then drops
    /// the line without a word), or nil when the socket takes a connection, as glibc tries it:
    /// datagram first, then stream.
    package static func syslogProblem(environment: [String: String]) -> String? {
        let path = syslogSocket(environment: environment)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return "the syslog socket path \(path) is too long" }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        var reason = ""
        for kind in [SOCK_DGRAM, SOCK_STREAM] {
            let fd = socket(AF_UNIX, Int32(kind.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { reason = String(cString: strerror(errno)); continue }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if rc != 0 { reason = String(cString: strerror(errno)) }
            close(fd)
            if rc == 0 { return nil }
        }
        return "no syslog daemon listens on \(path) (\(reason))"
    }

    package static func printable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.prefix(300).map { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" ? $0 : "?" }))
    }

    private static func timestamp() -> String {
        var t = time(nil)
        var tmv = tm()
        gmtime_r(&t, &tmv)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tmv.tm_year + 1900)-\(two(tmv.tm_mon + 1))-\(two(tmv.tm_mday))T\(two(tmv.tm_hour)):\(two(tmv.tm_min)):\(two(tmv.tm_sec))Z"
    }

    private func makeDirectories(_ dir: String) {
        var path = ""
        for component in dir.split(separator: "/") {
            path += "/" + component
            _ = mkdir(path, 0o700)
        }
    }
}

/// Where `passconduit filter` writes its one line per message.
package enum FilterLogDestination: String, Sendable, Equatable {
    case file, syslog, none
}
