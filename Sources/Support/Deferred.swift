import Synchronization

/// A value computed on first read, once, by whichever thread reads it first; copies of the value
/// that holds it share the result. For parts of an opened pass most callers never read: the
/// delivery filter stages an offer without a pass's rendered fields, and rendering a date field
/// looks up the device's time zone, whose first lookup costs ~1.6 M instructions (issue 14).
/// `compute` must not read the same `Deferred` (it runs under its lock).
package final class Deferred<Value: Sendable>: Sendable {
    private enum State {
        case pending(@Sendable () -> Value)
        case done(Value)
    }

    private let state: Mutex<State>

    package init(_ compute: @escaping @Sendable () -> Value) {
        state = Mutex(.pending(compute))
    }

    /// Already known: nothing left to compute.
    package init(value: Value) {
        state = Mutex(.done(value))
    }

    package var value: Value {
        state.withLock { state in
            switch state {
            case .done(let value):
                return value
            case .pending(let compute):
                let value = compute()
                state = .done(value)
                return value
            }
        }
    }

    /// Whether `value` has been computed (for tests that pin what a path leaves unread).
    package var isComputed: Bool {
        state.withLock { if case .done = $0 { true } else { false } }
    }
}

extension Deferred: Equatable where Value: Equatable {
    /// Equal values (computing both when needed), as if the value were stored.
    package static func == (a: Deferred, b: Deferred) -> Bool {
        a === b || a.value == b.value
    }
}
