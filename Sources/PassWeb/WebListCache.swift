import Conduit
import Foundation
import PassStore

/// What the pass list needs of each signed-in user's library — the passes, the pending offers,
/// each pass's times — kept while that library's change log has not moved, and the list's passes
/// drawn as HTML per search, kept until the first moment the list would look different.
///
/// Why the change log is a sound key: on both backends every write that changes a pass row or an
/// offer row appends to the log in the same transaction (add and addIfNew, replace and
/// replaceIfChanged, revert, remove, stageOffer, acceptOffer, declineOffer; `restore` copies a
/// log that ends after every pass it writes). A write that changes nothing (the same bytes again)
/// logs nothing and changes nothing the list shows. `ChangeLogTests` checks this on SQLite and on
/// PostgreSQL (`testEveryWriteThatChangesPassesOrOffersMovesTheLastSequence`). The key is the
/// log's last entry — its sequence number and its time — not the number alone: a library dropped
/// and made again under the same name starts a new log, whose entry 7 is not the old entry 7.
///
/// Each request checks the key first (one small read of the log's tail), so a change made by any
/// process (the delivery filter, the CLI, another `serve`) shows on the next request. Entries are
/// kept per user and per library object: nothing of one user is looked up under another's name.
final class WebListCache: @unchecked Sendable {
    /// The log's last entry: what a cached list was read after.
    struct Tip: Equatable, Sendable {
        var sequence: Int64
        var at: Date?
    }

    /// One user's library as the list shows it.
    struct Snapshot: Sendable {
        var tip: Tip
        var passes: [StoredPass]
        var offers: [Offer]
        var times: [String: PassTimes]
        /// Index into `passes` by SHA-256.
        var bySHA256: [String: Int]
        /// Index into `passes` by page address (`WebPages.address`).
        var byAddress: [String: Int] = [:]

        func pass(sha256: String) -> StoredPass? { bySHA256[sha256].map { passes[$0] } }
        func pass(address: String) -> StoredPass? { byAddress[address].map { passes[$0] } }
    }

    /// A pass page as drawn for one snapshot and languages: all of it but the parts that belong
    /// to the session (the navigation and the forms' token), which each request adds.
    struct DrawnPass: Sendable {
        var title: String
        var head: String
        /// The card and the actions, before the "Check for update" form.
        var card: String
        var canUpdate: Bool
        /// Where it came from and its history.
        var rest: String
        var weight: Int { title.utf8.count + head.utf8.count + card.utf8.count + rest.utf8.count }
    }

    private struct Entry {
        var library: HeldLibrary
        var snapshot: Snapshot
        /// The list's sections as drawn for a search, and until when that drawing holds.
        var drawn: [String: (html: String, validUntil: Date)] = [:]
        /// Pass pages as drawn (by SHA-256 and languages), and until when each holds.
        var passPages: [String: (page: DrawnPass, validUntil: Date)] = [:]
        var lastUse: UInt64
        var weight: Int {
            snapshot.passes.count * Self.bytesPerPass + drawn.values.reduce(0) { $0 + $1.html.utf8.count }
                + passPages.values.reduce(0) { $0 + $1.page.weight }
        }
        /// A rough size of one pass and its times in memory (its fields are most of it).
        static let bytesPerPass = 2048
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0
    /// Roughly how much all entries together may hold; the least recently used users go first.
    let budget: Int
    /// Drawn searches kept per user.
    static let drawnPerUser = 4
    /// Drawn pass pages kept per user.
    static let passPagesPerUser = 32

    init(budget: Int = 24 * 1024 * 1024) {
        self.budget = budget
    }

    /// `user`'s snapshot, read from `library` when the cached one is not current. `times` reads
    /// what the snapshot's passes need from their pass.json (by SHA-256, so cached by the caller).
    func snapshot(user: String, library: any PassLibraryBackend,
                  times: @Sendable ([StoredPass]) async -> [String: PassTimes]) async throws -> Snapshot {
        if let cached = try await current(user: user, library: library) { return cached }
        // The tip is read before the rows: a write in between leaves rows newer than the tip,
        // which the next request's check sees as moved (never rows older than their key).
        let tip = try await Self.tip(of: library)
        let passes = try await library.passes()
        let offers = try await library.offers()
        let snapshot = Snapshot(tip: tip, passes: passes, offers: offers, times: await times(passes),
                                bySHA256: Dictionary(passes.enumerated().map { ($1.sha256, $0) }, uniquingKeysWith: { a, _ in a }),
                                byAddress: Dictionary(passes.enumerated().map { (WebPages.address($1.id), $0) }, uniquingKeysWith: { a, _ in a }))
        lock.withLock {
            clock &+= 1
            // A snapshot read later never gives way to one read earlier (two requests at once).
            if let old = entries[user], old.library.matches(library), old.snapshot.tip.sequence > tip.sequence { return }
            entries[user] = Entry(library: HeldLibrary(library), snapshot: snapshot, lastUse: clock)
            trim()
        }
        return snapshot
    }

    /// `user`'s kept snapshot if there is one and it is current; nil otherwise (nothing is read
    /// then but the log's tail: a pass page does not load the whole list).
    func current(user: String, library: any PassLibraryBackend) async throws -> Snapshot? {
        guard let cached = lock.withLock({ entries[user].flatMap { $0.library.matches(library) ? $0.snapshot : nil } }),
              try await Self.isCurrent(cached.tip, library) else { return nil }
        touch(user)
        return cached
    }

    /// Whether nothing was logged after `tip`: the log's newest entry is still it.
    static func isCurrent(_ tip: Tip, _ library: any PassLibraryBackend) async throws -> Bool {
        try await library.isLatestChange(sequence: tip.sequence, at: tip.at)
    }

    static func tip(of library: any PassLibraryBackend) async throws -> Tip {
        let last = try await library.lastSequence()
        guard last > 0 else { return Tip(sequence: 0, at: nil) }
        let entry = try await library.changes(after: last - 1, limit: 1).first
        return Tip(sequence: last, at: entry?.sequence == last ? entry?.at : nil)
    }

    /// The drawing of `search` for `snapshot`, if one is kept and still holds at `now`.
    func drawn(user: String, library: any PassLibraryBackend, tip: Tip, search: String, now: Date) -> String? {
        lock.withLock {
            guard let entry = entries[user], entry.library.matches(library), entry.snapshot.tip == tip,
                  let hit = entry.drawn[search], now < hit.validUntil else { return nil }
            return hit.html
        }
    }

    func keep(user: String, library: any PassLibraryBackend, tip: Tip, search: String, html: String, validUntil: Date) {
        lock.withLock {
            guard var entry = entries[user], entry.library.matches(library), entry.snapshot.tip == tip else { return }
            if entry.drawn[search] == nil, entry.drawn.count >= Self.drawnPerUser {
                entry.drawn.removeAll(keepingCapacity: true)
            }
            entry.drawn[search] = (html, validUntil)
            entries[user] = entry
            trim()
        }
    }

    /// The pass page `key` as drawn for the snapshot at `tip`, if one is kept and still holds at `now`.
    func drawnPass(user: String, library: any PassLibraryBackend, tip: Tip, key: String, now: Date) -> DrawnPass? {
        lock.withLock {
            guard let entry = entries[user], entry.library.matches(library), entry.snapshot.tip == tip,
                  let hit = entry.passPages[key], now < hit.validUntil else { return nil }
            return hit.page
        }
    }

    func keep(user: String, library: any PassLibraryBackend, tip: Tip, key: String, page: DrawnPass, validUntil: Date) {
        lock.withLock {
            guard var entry = entries[user], entry.library.matches(library), entry.snapshot.tip == tip else { return }
            if entry.passPages[key] == nil, entry.passPages.count >= Self.passPagesPerUser {
                entry.passPages.removeAll(keepingCapacity: true)
            }
            entry.passPages[key] = (page, validUntil)
            entries[user] = entry
            trim()
        }
    }

    /// Forgets what is kept of `user`.
    func forget(user: String) {
        lock.withLock { _ = entries.removeValue(forKey: user) }
    }

    private func touch(_ user: String) {
        lock.withLock {
            clock &+= 1
            entries[user]?.lastUse = clock
        }
    }

    /// Under the lock: drops the least recently used users until the rest fit the budget (the
    /// newest entry always stays).
    private func trim() {
        var total = entries.values.reduce(0) { $0 + $1.weight }
        guard total > budget else { return }
        for (user, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }).dropLast() {
            entries.removeValue(forKey: user)
            total -= entry.weight
            if total <= budget { break }
        }
    }
}

/// The library object something was read from, held weakly: a library let go (`KeptLibraries`
/// evicts the least recently used, and lets go of one dropped and made again) matches nothing,
/// even when a new object takes its address (an `ObjectIdentifier` would match it).
struct HeldLibrary {
    weak var object: AnyObject?
    init(_ library: any PassLibraryBackend) { object = library }
    func matches(_ library: any PassLibraryBackend) -> Bool { object != nil && object === library }
}
