#if canImport(Glibc)
import Glibc
#endif
import DeliveryFilter
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import Support

/// `passconduit milter` as a process: listen, serve until SIGTERM or SIGINT (then finish the open
/// sessions' messages, at most `graceSeconds`), reload settings on SIGHUP.
package enum MilterDaemon {
    /// Runs until stopped; returns nil, or why it could not start (`cannot-listen` when the address
    /// or the metrics' cannot be bound), already logged and written to stderr; the command line
    /// makes it the exit status. `reload` re-reads the configuration; nil keeps the old settings
    /// (a broken file is logged). `metrics`: where to serve the Prometheus metrics (nil: nowhere).
    /// `privileges`: the user to become once the listeners are bound (`--user`), before any
    /// mail is read or worker started (`no-permission` when that fails, `cannot-create` when the
    /// log cannot be written as that user).
    package static func run(address: MilterAddress, settings: MilterSettings, graceSeconds: Double = 30,
                            metrics: (host: String, port: Int)? = nil, privileges: MilterPrivileges? = nil,
                            ready: @Sendable (MilterServer) -> Void = { _ in },
                            reload: @escaping @Sendable () -> Result<MilterSettings, FilterError>) -> Problem? {
        // SIGTERM, SIGINT and SIGHUP are blocked before the daemon starts a thread, so every thread
        // inherits the mask: a signal sent at any moment, even while the daemon binds its socket,
        // stays pending until the signal thread below takes it. (A dispatch signal source set up
        // after the listener left a window where SIGTERM killed the daemon, or was dropped.)
        var handled = sigset_t()
        sigemptyset(&handled)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&handled, s) }
        pthread_sigmask(SIG_BLOCK, &handled, nil)
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        let server = MilterServer(settings: settings)
        do {
            try server.start(listening: address)
        } catch {
            let reason = describe(error)
            server.log("cannot listen on \(address): \(reason)")
            writeError("passconduit milter: cannot listen on \(address): \(reason)\n")
            server.shutdown()
            return Problem(.cannotListen, message: "cannot listen on \(address): \(reason)")
        }
        if let metrics {
            do {
                try server.serveMetrics(host: metrics.host, port: metrics.port)
            } catch {
                let reason = describe(error)
                server.log("cannot serve the metrics on \(metrics.host):\(metrics.port): \(reason)")
                writeError("passconduit milter: cannot serve the metrics on \(metrics.host):\(metrics.port): \(reason)\n")
                server.stop(graceSeconds: 0)
                server.wait()
                if case .unix(let path) = address { _ = unlink(path) }
                server.shutdown()
                return Problem(.cannotListen, message: "cannot serve the metrics on \(metrics.host):\(metrics.port): \(reason)")
            }
        }
        if let privileges {
            if let problem = privileges.drop() {
                server.log("cannot run as \(privileges.user): \(problem)")
                writeError("passconduit milter: cannot run as \(privileges.user): \(problem)\n")
                server.stop(graceSeconds: 0)
                server.wait()
                if case .unix(let path) = address { _ = unlink(path) }
                server.shutdown()
                return Problem(.noPermission, message: "cannot run as \(privileges.user): \(problem)")
            }
            if let problem = MilterServer.log(for: settings).problem() {
                writeError("passconduit milter: as \(privileges.user): \(problem)\n")
                server.stop(graceSeconds: 0)
                server.wait()
                server.shutdown()
                return Problem(.cannotCreate, message: "as \(privileges.user): \(problem)")
            }
            server.log("running as user \(privileges.user) (uid \(privileges.uid)), group \(privileges.groupName) (gid \(privileges.gid))")
        }
        ready(server)
        let finished = NIOLockedValueBox(false)
        let waitFor = handled
        // One thread of its own, blocked in sigwait for the daemon's life.
        DispatchQueue(label: "passconduit.milter.signals").async {
            var set = waitFor
            while true {
                var signal: Int32 = 0
                guard sigwait(&set, &signal) == 0, !finished.withLockedValue({ $0 }) else { continue }
                if signal == SIGHUP {
                    switch reload() {
                    case .success(let settings): server.reload(settings)
                    case .failure(let problem): server.log("reload failed, keeping the old settings: \(problem)")
                    }
                } else {
                    server.stop(graceSeconds: graceSeconds)
                }
            }
        }
        server.wait()
        if case .unix(let path) = address { _ = unlink(path) }
        server.log("stopped")
        finished.withLockedValue { $0 = true }
        server.shutdown()
        return nil
    }

    /// A bind failure in words ("Address already in use"), on one line.
    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return String(String(describing: error).map { $0.isNewline ? " " : $0 })
    }

    private static func writeError(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
