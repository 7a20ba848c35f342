#if canImport(Glibc)
import Glibc
#endif

/// Signal discipline of `passconduit filter` (a filter may never die of a signal):
/// SIGPIPE and SIGXFSZ are ignored so a closed stdout or a file size limit become error returns;
/// SIGTERM, SIGINT, SIGHUP and SIGQUIT end the filter with exit 75 and no output if output has not
/// started, and are ignored once it has — the message is then
/// finished. The state is two words read by the handler; every call in it is async-signal-safe.
enum FilterSignals {
    nonisolated(unsafe) static var outputStarted: Int32 = 0
    static let terminating: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGQUIT]

    static func install() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGUSR1, SIG_IGN)
        signal(SIGUSR2, SIG_IGN)
        signal(SIGALRM, SIG_IGN)
        for s in terminating {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = filterTerminationHandler
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(s, &action, nil)
        }
    }

    /// From here on a termination request no longer ends the process: the message is finished.
    /// The store happens before the caller's next write(2) (an opaque call the compiler cannot move it past).
    static func beginOutput() { outputStarted = 1 }

}

private func filterTerminationHandler(_ signal: Int32) {
    if FilterSignals.outputStarted != 0 { return }
    _exit(75)
}
