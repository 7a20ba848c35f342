import Foundation
import PassStore
import PassUpdate
import Support
import WalletPass

/// `update --library-map`: every mailbox library of a gateway checked in one run, with one HTTP
/// client, a few libraries at a time, one request at a time per issuer host (`IssuerGate`), an
/// issuer's Retry-After held across libraries, and in each library what a run on that library
/// alone does: its own device registration, its own change log, the same verification.
package enum MailboxUpdate {
    /// One library of the map: its mailbox, where it is (without a password), and how to open it.
    package struct Library: Sendable {
        package var mailbox: String
        package var location: String
        package var open: @Sendable () async throws -> any PassLibraryBackend

        package init(mailbox: String, location: String, open: @escaping @Sendable () async throws -> any PassLibraryBackend) {
            self.mailbox = mailbox
            self.location = location
            self.open = open
        }
    }

    /// What one library's run found: its checks, or why it could not be run at all (a busy
    /// file, a server that is down); the other libraries go on either way.
    package struct Result: Sendable {
        package var mailbox: String
        package var location: String
        package var outcomes: [UpdateOutcome] = []
        package var problem: Problem?
    }

    /// The figures of a run, for the log and the metrics file.
    package struct Figures: Sendable, Equatable {
        package var libraries = 0
        package var librariesFailed = 0
        package var checked = 0
        package var updated = 0
        package var unchanged = 0
        package var refused = 0
        package var failed = 0
        package var skipped = 0

        package init(_ results: [Result]) {
            libraries = results.count
            for result in results {
                if result.problem != nil { librariesFailed += 1 }
                for outcome in result.outcomes {
                    switch outcome.kind {
                    case .updated: updated += 1; checked += 1
                    case .unchanged: unchanged += 1; checked += 1
                    case .refused: refused += 1; checked += 1
                    case .failed: failed += 1; checked += 1
                    case .skipped: skipped += 1
                    }
                }
            }
        }
    }

    /// Runs `request` on each library, `concurrency` libraries at a time, and returns one result
    /// per library in the order given. The run's time limit holds for all of them together: a
    /// library reached after it is spent is checked with what is left (its requests then fail
    /// as timed out, and the next run takes them up).
    package static func run(_ libraries: [Library], request: UpdateRequest, opener: PassOpener, client: WebServiceClient,
                            concurrency: Int = 4, gate: IssuerGate = IssuerGate(),
                            progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in },
                            now: @escaping @Sendable () -> Date = { Date() }) async -> [Result] {
        let started = ContinuousClock.now
        let width = max(1, concurrency)
        var results = [Result?](repeating: nil, count: libraries.count)
        await withTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            var done = 0
            func start() {
                let index = next
                let library = libraries[index]
                var own = request
                let spent = ContinuousClock.now - started
                let spentSeconds = Double(spent.components.seconds) + Double(spent.components.attoseconds) / 1e18
                own.timeLimit = max(0.001, request.timeLimit - spentSeconds)
                group.addTask {
                    (index, await one(library, request: own, opener: opener, client: client, gate: gate, now: now))
                }
                next += 1
            }
            while next < libraries.count && next < width { start() }
            while let (index, result) = await group.next() {
                results[index] = result
                done += 1
                progress(done, libraries.count)
                if next < libraries.count { start() }
            }
        }
        return results.compactMap { $0 }
    }

    static func one(_ library: Library, request: UpdateRequest, opener: PassOpener, client: WebServiceClient,
                    gate: IssuerGate, now: @escaping @Sendable () -> Date) async -> Result {
        var result = Result(mailbox: library.mailbox, location: library.location)
        let opened: any PassLibraryBackend
        do {
            opened = try await library.open()
        } catch {
            result.problem = problem(error)
            return result
        }
        do {
            result.outcomes = try await UpdateRun(library: opened, opener: opener, client: client, gate: gate, now: now).run(request)
        } catch {
            result.problem = problem(error)
        }
        await opened.close()
        return result
    }

    static func problem(_ error: any Error) -> Problem {
        if let error = error as? LibraryError { return error.problem }
        return Problem(.library, message: "This library could not be used; its passes were not checked.", detail: "\(error)")
    }
}
