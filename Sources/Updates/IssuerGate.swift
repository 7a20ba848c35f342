import Foundation

/// What every library of a gateway shares while it is updated (`update --library-map`): one
/// request at a time to each issuer host, however many libraries hold its passes, and an
/// issuer's Retry-After, once heard, held for every library until it has passed. A single
/// library's run (the desktop `update`, the web wallet's button) has no gate.
package actor IssuerGate {
    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    private var retryAfter: [String: Date] = [:]

    package init() {}

    /// Waits until no other request to `host` is in flight, then holds it until `release`.
    func acquire(_ host: String) async {
        if busy.insert(host).inserted { return }
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    /// Hands `host` to the next waiting request (first come, first served), or frees it.
    func release(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            busy.remove(host)
        }
    }

    /// The issuer at `host` asked to wait until `date`.
    func backOff(_ host: String, until date: Date) {
        if let known = retryAfter[host], known >= date { return }
        retryAfter[host] = date
    }

    /// Until when `host` asked to be left alone, if that is still after `now`.
    func waitUntil(_ host: String, now: Date) -> Date? {
        guard let date = retryAfter[host], date > now else { return nil }
        return date
    }
}
