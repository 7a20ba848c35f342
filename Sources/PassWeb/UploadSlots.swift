import CMemory
import Foundation

/// How many uploads (the Add page, `POST /api/v1/passes`) are being read and checked at once:
/// at most `atOnce` on the whole server and `perPerson` for one signed-in address. A place is
/// taken before a byte of the body is read, so uploads over the limit cost neither memory nor
/// CPU: they get 503 (the server is busy) or 429 (this person already has `perPerson` going),
/// with Retry-After, and nothing changes. When the last upload in flight ends, the memory the
/// burst took is given back to the system.
final class UploadSlots: @unchecked Sendable {
    /// Why an upload was not taken.
    enum Refusal: Error, Equatable {
        /// This person already has `perPerson` uploads being checked.
        case person
        /// The server has `atOnce` uploads being checked.
        case everyone
    }

    let atOnce: Int
    let perPerson: Int
    private let lock = NSLock()
    private var total = 0
    private var byUser: [String: Int] = [:]

    init(atOnce: Int, perPerson: Int) {
        self.atOnce = max(1, atOnce)
        self.perPerson = max(1, perPerson)
    }

    /// Takes a place for `user`'s upload; give it back with `release(user:)` when the answer is made.
    func take(user: String) throws(Refusal) {
        let refusal: Refusal? = lock.withLock {
            if byUser[user, default: 0] >= perPerson { return .person }
            if total >= atOnce { return .everyone }
            total += 1
            byUser[user, default: 0] += 1
            return nil
        }
        if let refusal { throw refusal }
    }

    func release(user: String) {
        let last: Bool = lock.withLock {
            total -= 1
            let left = byUser[user, default: 1] - 1
            byUser[user] = left > 0 ? left : nil
            return total == 0
        }
        if last { _ = passconduit_return_free_memory() }
    }

    /// Uploads being checked now (tests).
    var inFlight: Int { lock.withLock { total } }

    /// The sentence and Retry-After seconds of a refusal.
    static func answer(_ refusal: Refusal) -> (sentence: String, retryAfter: Int) {
        switch refusal {
        case .person:
            return ("Your other upload is still being checked. Nothing was changed; wait until it is done, then add this file again.", 10)
        case .everyone:
            return ("The wallet is checking many uploads right now. Nothing was changed; try again in a minute.", 30)
        }
    }
}
