import Foundation

/// A one-way flag shared with a transaction body (set once COMMIT has been sent).
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = false
    var value: Bool {
        get { lock.lock(); defer { lock.unlock() }; return _value }
        set { lock.lock(); _value = newValue; lock.unlock() }
    }

    /// Sets the flag; true only for the call that set it.
    func setOnce() -> Bool {
        lock.lock(); defer { lock.unlock() }
        if _value { return false }
        _value = true
        return true
    }
}

/// Races work against a deadline without waiting for the work to notice: a query on a silent
/// connection may not end for minutes, and the caller must still get its answer in time.
enum Deadline {
    struct Passed: Error {}

    static func run<T: Sendable>(until deadline: ContinuousClock.Instant,
                                 _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once<T>()
        let worker = Task {
            do { once.finish(.success(try await work())) } catch { once.finish(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            if once.finish(.failure(Passed())) { worker.cancel() }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in once.set(continuation) }
        } onCancel: {
            if once.finish(.failure(CancellationError())) { worker.cancel() }
        }
    }

    final class Once<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, any Error>?
        private var done = false
        private var early: Result<T, any Error>?

        func set(_ c: CheckedContinuation<T, any Error>) {
            lock.lock()
            if let early { lock.unlock(); c.resume(with: early); return }
            continuation = c
            lock.unlock()
        }

        @discardableResult
        func finish(_ result: Result<T, any Error>) -> Bool {
            lock.lock()
            guard !done else { lock.unlock(); return false }
            done = true
            if let c = continuation {
                continuation = nil
                lock.unlock()
                c.resume(with: result)
            } else {
                early = result
                lock.unlock()
            }
            return true
        }
    }
}
