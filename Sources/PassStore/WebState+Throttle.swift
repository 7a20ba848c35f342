import Foundation

extension WebState {
    /// Sign-in throttling for the web wallet's mailbox sign-in, as the OWASP Authentication Cheat
    /// Sheet describes it: guessing is slowed where it comes from, and an owner is not locked out
    /// by strangers.
    ///
    /// - Per account and client address: at most `pairLimit` attempts in `window`; then that
    ///   client is refused for that account until the window of its first attempt ends.
    /// - Per client address, over all accounts (guessing many mailboxes from one place): at most
    ///   `clientLimit` attempts in `window`.
    /// - Per account, from anywhere (guessing spread over many addresses): past `accountLimit`
    ///   attempts in `window` no lock, a short back-off: one attempt every `accountSpacing`.
    ///
    /// An attempt is counted before the password is checked, in the same transaction as the
    /// decision (`WebStateStore.countSignIn`), so parallel guesses on any number of `serve` hosts
    /// are counted one by one; the right password takes its attempt back. A refused attempt
    /// counts nothing. Without a known client address (a proxy that does not say who its
    /// client is) only the per-account rule applies, so nobody is locked out for others.
    /// The rules are decided here once; each store only reads and writes the counters.
    package enum Throttle {
        package static let window: TimeInterval = 15 * 60
        package static let pairLimit = 5
        package static let clientLimit = 30
        package static let accountLimit = 50
        package static let accountSpacing: TimeInterval = 10

        /// A counter's key: `client` "" for an account's counter over every client, `account` ""
        /// for a client's counter over every account.
        package struct Key: Sendable, Hashable {
            package var account: String
            package var client: String
            package init(account: String, client: String) {
                self.account = account
                self.client = client
            }
        }

        /// Attempts under one key since `first`, the newest at `last`.
        package struct Counter: Sendable, Equatable {
            package var key: Key
            package var first: Date
            package var last: Date
            package var count: Int
            package init(key: Key, first: Date, last: Date, count: Int) {
                self.key = key
                self.first = first
                self.last = last
                self.count = count
            }
        }

        /// Why an attempt was refused (the log's `reason=`).
        package enum Reason: String, Sendable {
            case accountAndClient = "too-many-failures-for-this-account-from-this-client"
            case client = "too-many-failures-from-this-client"
            case account = "many-failures-for-this-account-back-off"
        }

        package enum Verdict: Sendable, Equatable {
            /// Go on and check the password; `earlier`: this client's earlier attempts at this
            /// account in the window.
            case allowed(earlier: Int)
            /// Not checked; try again in `retryAfter` seconds.
            case throttled(Reason, retryAfter: Int)
        }

        /// The keys an attempt of `account` from `client` counts under, in the order a store
        /// locks their rows (the same order everywhere, so two attempts never wait for each other
        /// in a circle).
        package static func keys(account: String, client: String?) -> [Key] {
            guard let client, !client.isEmpty else { return [Key(account: account, client: "")] }
            return [Key(account: account, client: client), Key(account: "", client: client), Key(account: account, client: "")]
        }

        /// The decision on the counters of `keys(…)` as stored (count 0 for a new one): the
        /// verdict, and the counters to write when the attempt is allowed (nil: write nothing).
        package static func judge(_ stored: [Counter], now: Date) -> (verdict: Verdict, write: [Counter]?) {
            let current = stored.map { c -> Counter in
                c.first < now.addingTimeInterval(-window) ? Counter(key: c.key, first: now, last: c.last, count: 0) : c
            }
            // Whole seconds, up; a store's timestamps (PostgreSQL keeps microseconds) may add a sliver.
            func seconds(_ t: TimeInterval) -> Int { max(1, Int((t - 0.001).rounded(.up))) }
            func remaining(_ c: Counter) -> Int { seconds(c.first.addingTimeInterval(window).timeIntervalSince(now)) }
            var earlier = 0
            for c in current {
                switch (c.key.account.isEmpty, c.key.client.isEmpty) {
                case (false, false):
                    if c.count >= pairLimit { return (.throttled(.accountAndClient, retryAfter: remaining(c)), nil) }
                    earlier = c.count
                case (true, false):
                    if c.count >= clientLimit { return (.throttled(.client, retryAfter: remaining(c)), nil) }
                default:
                    let wait = c.last.addingTimeInterval(accountSpacing).timeIntervalSince(now)
                    if c.count >= accountLimit && wait > 0 {
                        return (.throttled(.account, retryAfter: seconds(wait)), nil)
                    }
                }
            }
            return (.allowed(earlier: earlier), current.map { Counter(key: $0.key, first: $0.first, last: now, count: $0.count + 1) })
        }

        /// A counter that has nothing left to say at `now` (its window is over).
        package static func expired(_ c: Counter, now: Date) -> Bool { c.first < now.addingTimeInterval(-window) && c.last < now.addingTimeInterval(-window) }
    }
}
