import Foundation

extension MailboxUpdate.Figures {
    /// The run's figures in Prometheus' text format, for node_exporter's textfile collector (a
    /// timer's run has no listener to scrape): gauges of the last run, and when it ended.
    package func prometheus(seconds: Double, finished: Date) -> String {
        var out = ""
        func gauge(_ name: String, _ help: String, _ samples: [(String?, Int)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for (label, value) in samples {
                out += name + (label.map { "{outcome=\"\($0)\"}" } ?? "") + " \(value)\n"
            }
        }
        gauge("passconduit_update_libraries", "Mailbox libraries the last `update --library-map` run reached.", [(nil, libraries)])
        gauge("passconduit_update_libraries_failed", "Libraries that could not be used in the last run (busy, a server down).", [(nil, librariesFailed)])
        gauge("passconduit_update_passes", "Passes of the last run, by what their check found.",
              [("updated", updated), ("unchanged", unchanged), ("refused", refused), ("failed", failed), ("skipped", skipped)])
        gauge("passconduit_update_passes_checked", "Passes whose issuer was asked in the last run.", [(nil, checked)])
        out += "# HELP passconduit_update_run_seconds How long the last run took.\n# TYPE passconduit_update_run_seconds gauge\n"
        out += "passconduit_update_run_seconds " + String(format: "%.3f", seconds) + "\n"
        out += "# HELP passconduit_update_last_run_timestamp_seconds When the last run ended (Unix time).\n# TYPE passconduit_update_last_run_timestamp_seconds gauge\n"
        out += "passconduit_update_last_run_timestamp_seconds \(Int(finished.timeIntervalSince1970))\n"
        return out
    }
}
