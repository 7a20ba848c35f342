import Foundation

/// The pass library as the rest of the program sees it: every operation Conduit, the delivery
/// filter and the CLI use, whatever engine keeps the rows. PassStoreSQLite's `PassLibrary` keeps
/// them in SQLite (GRDB, any `DatabaseWriter`); PassStorePostgres keeps them on a PostgreSQL
/// server. Only the executables choose one (the composition root, `LibraryRoot.open`); everything
/// else holds an `any PassLibraryBackend`.
///
/// Every implementation gives the same answers and the same `LibraryError` kinds for the same
/// calls (the PassStore behaviour tests run against each): each write is one transaction that
/// commits whole or not at all; `contains` decides new/contained/update/stale by the SHA-256 and
/// the signing times; the change log's sequence numbers only grow and are never reused.
package protocol PassLibraryBackend: AnyObject, Sendable {
    /// Where the library is, for messages: a file path, or a server and database (never a
    /// password).
    var location: String { get }
    var options: LibraryOptions { get }

    // Passes
    func contains(_ record: PassRecord) async throws -> LibraryState
    @discardableResult
    func add(_ record: PassRecord, allowUntrusted: Bool) async throws -> StoredPass
    /// `add` that says whether it added: nil when the library already held these bytes (another
    /// process added the same pass first), decided in the same transaction as the insert.
    func addIfNew(_ record: PassRecord, allowUntrusted: Bool) async throws -> StoredPass?
    @discardableResult
    func replace(with record: PassRecord, allowUntrusted: Bool) async throws -> [FieldChange]
    /// nil when the library already holds these bytes.
    @discardableResult
    func replaceIfChanged(with record: PassRecord, allowUntrusted: Bool) async throws -> [FieldChange]?
    func remove(_ id: PassID) async throws
    @discardableResult
    func revert(_ id: PassID) async throws -> StoredPass
    func pass(_ id: PassID) async throws -> StoredPass?
    func passes() async throws -> [StoredPass]
    func count() async throws -> Int
    func export(_ id: PassID) async throws -> [UInt8]
    func resolve(_ text: String) async throws -> PassID

    // Offers
    @discardableResult
    func stageOffer(_ record: PassRecord) async throws -> Offer
    func offers() async throws -> [Offer]
    func offer(_ offerID: Int64) async throws -> Offer?
    func offerBytes(_ offerID: Int64) async throws -> [UInt8]
    @discardableResult
    func acceptOffer(_ offerID: Int64, record: PassRecord, allowUntrusted: Bool) async throws -> StoredPass
    func declineOffer(_ offerID: Int64) async throws

    // Share links (issue 42): see `ShareLink`.
    /// A new link to pass `id` whose secret has SHA-256 `secretHash`, made now (`options.now`)
    /// and refused from `expires` on. `notFound` when the library holds no such pass.
    func createShareLink(_ id: PassID, secretHash: String, expires: Date, oneDownload: Bool) async throws -> ShareLink
    /// The links to pass `id` (every link for nil), oldest first, revoked and expired ones too.
    func shareLinks(_ id: PassID?) async throws -> [ShareLink]
    /// Revokes link `linkID`; false when the library has no such link.
    func revokeShareLink(_ linkID: Int64) async throws -> Bool
    /// The link whose secret has SHA-256 `secretHash` and its pass's current bytes, the use
    /// counted in the same statement that checks the link is live (not revoked, not expired at
    /// `options.now`, a one-download link not used yet), so two requests at once never both
    /// get a one-download link, on any number of hosts. nil for anything else (unknown,
    /// expired, revoked, used up, or its pass removed).
    func redeemShareLink(secretHash: String) async throws -> (link: ShareLink, bytes: [UInt8])?

    // Notices (issue 43 item 2): see `Notice`. A replace whose changes carry change messages
    // records its notice itself, in its own transaction (`LibraryRules.LogEntry.notice`).
    /// Records each reminder once per (pass, event time): those already recorded are left as
    /// they are. Returns how many were new.
    @discardableResult
    func recordReminders(_ drafts: [NoticeDraft]) async throws -> Int
    /// The notices made at or after `since`, newest first, at most `limit`, with the channels
    /// that claimed each and the pass as it is now.
    func notices(since: Date, limit: Int) async throws -> [Notice]
    /// Claims notice `id` for `channel` at `options.now`: true for the one caller that claimed it
    /// first, false for every later one (on any number of processes and hosts) and for a notice
    /// the library does not hold. A channel claims before it sends, so a notice is sent at most once.
    func claimNotice(_ id: Int64, channel: Notice.Channel) async throws -> Bool
    /// Gives a claim back after the channel could not send (a failing `sendmail`), so the next
    /// run tries again.
    func releaseNotice(_ id: Int64, channel: Notice.Channel) async throws
    /// This library's own notice settings (all nil until its owner chose on the Settings page).
    func noticePreferences() async throws -> NoticePreferences
    /// Keeps `preferences` as this library's notice settings (a lead time beyond
    /// `NoticePreferences.maxMinutes` is `refused`).
    func setNoticePreferences(_ preferences: NoticePreferences) async throws

    // The change log
    func changes(after sequence: Int64, limit: Int) async throws -> [ChangeEntry]
    func lastSequence() async throws -> Int64
    /// Whether the log's newest entry is entry `sequence` logged at `at` (for 0: whether the log
    /// is empty): what the web wallet checks on every request before it serves what it keeps.
    func isLatestChange(sequence: Int64, at: Date?) async throws -> Bool
    /// The entries after `sequence` as soon as there are any, or [] once `timeout` has passed.
    /// SQLite polls; PostgreSQL waits for a notification. `changeFeed(after:)` loops on it.
    func waitForChanges(after sequence: Int64, timeout: TimeInterval, limit: Int) async throws -> [ChangeEntry]

    // The web-service client's memory
    func webServiceStates() async throws -> [PassID: WebServiceState]
    func webServiceState(_ id: PassID) async throws -> WebServiceState?
    func saveWebServiceStates(_ states: [WebServiceState]) async throws
    func deviceLibraryIdentifier() async throws -> String
    func registrations() async throws -> [WebServiceRegistration]
    func saveRegistration(_ registration: WebServiceRegistration) async throws
    func deleteRegistration(_ id: PassID) async throws
    func updateTag(webServiceURL: String, passTypeIdentifier: String) async throws -> String?
    func setUpdateTag(_ tag: String?, webServiceURL: String, passTypeIdentifier: String) async throws

    // Moving a library (`library copy`)
    /// Every row, in one consistent read.
    func snapshot() async throws -> LibrarySnapshot
    /// Writes `snapshot` into this library, which must be empty (`exists` otherwise), in one
    /// transaction, keeping sequence numbers, offer ids and times.
    func restore(_ snapshot: LibrarySnapshot) async throws

    /// The library checked end to end; the problems found (empty when sound). Read-only.
    func check(verifyBytes: Bool) async throws -> [String]

    /// Releases connections. The library must not be used afterwards.
    func close() async

    /// Whether the library at `location` is still the one this object opened: false once its
    /// file was removed or replaced by another (`library drop` then `library create`, a backup
    /// put back by rename), or once its user's library on the server was erased (and perhaps
    /// made again). A process that keeps a library open between uses (`serve`) asks before each
    /// use and opens the location again when it is not: writes to a file nobody will read again
    /// are lost.
    func isCurrent() async throws -> Bool
}

extension PassLibraryBackend {
    @discardableResult
    package func add(_ record: PassRecord) async throws -> StoredPass {
        try await add(record, allowUntrusted: false)
    }

    @discardableResult
    package func replace(with record: PassRecord) async throws -> [FieldChange] {
        try await replace(with: record, allowUntrusted: false)
    }

    @discardableResult
    package func acceptOffer(_ offerID: Int64, record: PassRecord) async throws -> StoredPass {
        try await acceptOffer(offerID, record: record, allowUntrusted: false)
    }

    package func changes(after sequence: Int64) async throws -> [ChangeEntry] {
        try await changes(after: sequence, limit: 1000)
    }

    package func check() async throws -> [String] {
        try await check(verifyBytes: true)
    }

    /// Every change after `sequence`, then each new one as it is committed, without end (until
    /// the task is cancelled or the library fails). `log --follow` and a chat bridge read this.
    package func changeFeed(after sequence: Int64, wait: TimeInterval = 5) -> LibraryChangeFeed {
        LibraryChangeFeed(library: self, after: sequence, wait: wait)
    }
}

/// The change log as an `AsyncSequence`: the entries after a sequence number, oldest first,
/// then every new one as it is committed. Ends (nil) when the reading task is cancelled.
package struct LibraryChangeFeed: AsyncSequence, Sendable {
    package typealias Element = ChangeEntry
    let library: any PassLibraryBackend
    let after: Int64
    let wait: TimeInterval

    package struct AsyncIterator: AsyncIteratorProtocol {
        let library: any PassLibraryBackend
        var last: Int64
        let wait: TimeInterval
        var buffer: [ChangeEntry] = []
        var index = 0

        package mutating func next() async throws -> ChangeEntry? {
            while index == buffer.count {
                if Task.isCancelled { return nil }
                buffer = try await library.waitForChanges(after: last, timeout: wait, limit: 1000)
                index = 0
            }
            let entry = buffer[index]
            index += 1
            last = entry.sequence
            return entry
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(library: library, last: after, wait: wait)
    }
}

/// Runs async library work from synchronous code (the scanner, the delivery filter's policy, the
/// CLI commands): the calling thread waits while a task does the work. Never call it from a task
/// on Swift's cooperative pool (it would hold one of its few threads); the callers are plain
/// threads (a command's main thread, the filter's scan worker).
///
/// The task starts on the calling thread (`Task.immediate`) and runs there until it first
/// suspends: the SQLite library never does, so its calls finish before the wait and no thread of
/// the cooperative pool is started (a detached task started three for the one-shot filter); a
/// library on a server suspends on its network I/O and goes on on the pool while this thread waits.
package enum Blocking {
    package static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task.immediate {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            box.set(result)
            done.signal()
        }
        done.wait()
        return try box.get().get()
    }

    private final class ResultBox<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<T, any Error>?
        func set(_ value: Result<T, any Error>) { lock.lock(); result = value; lock.unlock() }
        func get() -> Result<T, any Error> {
            lock.lock(); defer { lock.unlock() }
            return result!   // set before the semaphore is signalled
        }
    }
}

/// Opens the library at a location (a `--library` value) with the given options. Built by the
/// composition root (`LibraryRoot.opener`) and handed to code that opens libraries itself.
package typealias LibraryOpener = @Sendable (_ location: String, _ options: LibraryOptions) throws -> any PassLibraryBackend

extension PassLibraryBackend {
    /// From `changes(after:limit:)`: the entries after the one before `sequence` are exactly it.
    package func isLatestChange(sequence: Int64, at: Date?) async throws -> Bool {
        guard sequence > 0 else { return try await changes(after: 0, limit: 1).isEmpty }
        guard let at else { return false }
        let tail = try await changes(after: sequence - 1, limit: 2)
        return tail.count == 1 && tail[0].sequence == sequence && tail[0].at == at
    }
}
