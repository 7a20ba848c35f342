/// Runs a scan in the isolation it was given, cut at `deadlineSeconds`.
package struct FilterScanRunner: Sendable {
    package var isolation: FilterScanIsolation
    package var deadlineSeconds: Double

    package init(isolation: FilterScanIsolation, deadlineSeconds: Double) {
        self.isolation = isolation
        self.deadlineSeconds = deadlineSeconds
    }

    /// Scans `message`: inline with a scanner from `makeScanner`, or in a worker, which builds its own.
    package func run(_ message: [UInt8], makeScanner: @escaping FilterScannerFactory) -> Result<[FilterPassReport], FilterError> {
        switch isolation {
        case .inline:
            do {
                return .success(try makeScanner().scan(message: message))
            } catch {
                return .failure(FilterError.from(error))
            }
        case .worker(let pool):
            return pool.scan(message, deadline: .now + .seconds(deadlineSeconds))
        }
    }
}

/// Runs the scan under the filter's deadline, isolated so that neither a hang nor a crash in the
/// MIME parser, zip reader, OpenSSL or SQLite can cost the message.
package enum FilterScanIsolation: Sendable {
    /// In a worker process from `pool` (started by exec): a crash or a hang kills only the worker,
    /// and at the deadline the worker is killed (SIGKILL), so no library work continues after the
    /// filter has decided. Used by `passconduit filter`.
    case worker(ScanWorkerPool)
    /// On the caller's thread, no deadline (deterministic tests of the rest of the pipeline).
    case inline
}
