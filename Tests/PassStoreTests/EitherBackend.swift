import Foundation
import XCTest
@testable import PassStore
@testable import PassStoreSQLite

/// The library behaviour tests' view of a library on either backend: the synchronous calls the
/// tests were written with (PassLibrary's), each made through `PassLibraryBackend` and awaited,
/// so one test body runs unchanged against SQLite and PostgreSQL (issue 28 item 3).
final class EitherLibrary: @unchecked Sendable {
    let backend: any PassLibraryBackend
    let kind: BackendKind

    init(_ backend: any PassLibraryBackend, kind: BackendKind) {
        self.backend = backend
        self.kind = kind
    }

    /// Runs one async call to its end on another thread (the test's own thread waits).
    private func wait<T>(_ body: @escaping @Sendable (any PassLibraryBackend) async throws -> T) throws -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        let backend = self.backend
        Task.detached {
            do { box.result = .success(try await body(backend)) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    private final class Box<T>: @unchecked Sendable { var result: Result<T, Error>? }

    var location: String { backend.location }
    var options: LibraryOptions { backend.options }

    func contains(_ record: PassRecord) throws -> LibraryState { try wait { try await $0.contains(record) } }
    @discardableResult
    func add(_ record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass {
        try wait { try await $0.add(record, allowUntrusted: allowUntrusted) }
    }
    func addIfNew(_ record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass? {
        try wait { try await $0.addIfNew(record, allowUntrusted: allowUntrusted) }
    }
    @discardableResult
    func replace(with record: PassRecord, allowUntrusted: Bool = false) throws -> [FieldChange] {
        try wait { try await $0.replace(with: record, allowUntrusted: allowUntrusted) }
    }
    @discardableResult
    func replaceIfChanged(with record: PassRecord, allowUntrusted: Bool = false) throws -> [FieldChange]? {
        try wait { try await $0.replaceIfChanged(with: record, allowUntrusted: allowUntrusted) }
    }
    func remove(_ id: PassID) throws { try wait { try await $0.remove(id) } }
    @discardableResult
    func revert(_ id: PassID) throws -> StoredPass { try wait { try await $0.revert(id) } }
    func pass(_ id: PassID) throws -> StoredPass? { try wait { try await $0.pass(id) } }
    func pass(typeIdentifier: String, serial: String) throws -> StoredPass? {
        try pass(PassID(passTypeIdentifier: typeIdentifier, serialNumber: serial))
    }
    func passes() throws -> [StoredPass] { try wait { try await $0.passes() } }
    func count() throws -> Int { try wait { try await $0.count() } }
    func export(_ id: PassID) throws -> [UInt8] { try wait { try await $0.export(id) } }
    func resolve(_ text: String) throws -> PassID { try wait { try await $0.resolve(text) } }

    @discardableResult
    func stageOffer(_ record: PassRecord) throws -> Offer { try wait { try await $0.stageOffer(record) } }
    func offers() throws -> [Offer] { try wait { try await $0.offers() } }
    func offer(_ offerID: Int64) throws -> Offer? { try wait { try await $0.offer(offerID) } }
    func offerBytes(_ offerID: Int64) throws -> [UInt8] { try wait { try await $0.offerBytes(offerID) } }
    @discardableResult
    func acceptOffer(_ offerID: Int64, record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass {
        try wait { try await $0.acceptOffer(offerID, record: record, allowUntrusted: allowUntrusted) }
    }
    func declineOffer(_ offerID: Int64) throws { try wait { try await $0.declineOffer(offerID) } }

    func changes(after sequence: Int64, limit: Int = 1000) throws -> [ChangeEntry] {
        try wait { try await $0.changes(after: sequence, limit: limit) }
    }
    func lastSequence() throws -> Int64 { try wait { try await $0.lastSequence() } }
    func isLatestChange(sequence: Int64, at: Date?) throws -> Bool { try wait { try await $0.isLatestChange(sequence: sequence, at: at) } }
    /// `pollInterval` is SQLite's (PostgreSQL waits for a notification); the backend protocol polls at its own pace.
    func waitForChanges(after sequence: Int64, timeout: TimeInterval, pollInterval: TimeInterval = 0.25, limit: Int = 1000) throws -> [ChangeEntry] {
        try wait { try await $0.waitForChanges(after: sequence, timeout: timeout, limit: limit) }
    }

    func webServiceStates() throws -> [PassID: WebServiceState] { try wait { try await $0.webServiceStates() } }
    func webServiceState(_ id: PassID) throws -> WebServiceState? { try wait { try await $0.webServiceState(id) } }
    func saveWebServiceStates(_ states: [WebServiceState]) throws { try wait { try await $0.saveWebServiceStates(states) } }
    func deviceLibraryIdentifier() throws -> String { try wait { try await $0.deviceLibraryIdentifier() } }
    func registrations() throws -> [WebServiceRegistration] { try wait { try await $0.registrations() } }
    func saveRegistration(_ registration: WebServiceRegistration) throws { try wait { try await $0.saveRegistration(registration) } }
    func deleteRegistration(_ id: PassID) throws { try wait { try await $0.deleteRegistration(id) } }
    func updateTag(webServiceURL: String, passTypeIdentifier: String) throws -> String? {
        try wait { try await $0.updateTag(webServiceURL: webServiceURL, passTypeIdentifier: passTypeIdentifier) }
    }
    func setUpdateTag(_ tag: String?, webServiceURL: String, passTypeIdentifier: String) throws {
        try wait { try await $0.setUpdateTag(tag, webServiceURL: webServiceURL, passTypeIdentifier: passTypeIdentifier) }
    }

    func snapshot() throws -> LibrarySnapshot { try wait { try await $0.snapshot() } }
    func restore(_ snapshot: LibrarySnapshot) throws { try wait { try await $0.restore(snapshot) } }

    func check(verifyBytes: Bool = true) throws -> [String] { try wait { try await $0.check(verifyBytes: verifyBytes) } }
    func close() { try? wait { await $0.close() } }
}

/// One test's library on one backend, opened as often as the test needs (another call is another
/// connection, as another process would have).
final class EitherFactory: @unchecked Sendable {
    let factory: BackendFactory
    private var libraries: [EitherLibrary] = []
    var kind: BackendKind { factory.kind }

    init(_ kind: BackendKind) { factory = BackendFactory(kind) }

    /// The library, on a stepping clock; `configure` sets its options (keptVersions, …).
    func library(clock: SteppingClock = SteppingClock(), configure: @escaping @Sendable (inout LibraryOptions) -> Void = { _ in }) throws -> EitherLibrary {
        let box = Opened()
        let done = DispatchSemaphore(value: 0)
        let factory = self.factory
        Task.detached {
            do { box.result = .success(try await factory.open(clock: clock, configure: configure)) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        let library = EitherLibrary(try box.result!.get(), kind: kind)
        libraries.append(library)
        return library
    }

    private final class Opened: @unchecked Sendable { var result: Result<any PassLibraryBackend, Error>? }

    func closeAll() {
        for library in libraries { library.close() }
        libraries = []
    }
}

extension XCTestCase {
    /// Runs `body` once per backend (SQLite, then PostgreSQL on the tests' shared server), each with a
    /// library of its own; a failure names the backend.
    func eachBackend(file: StaticString = #filePath, line: UInt = #line, _ body: (EitherFactory) throws -> Void) {
        for kind in BackendKind.allCases {
            let either = EitherFactory(kind)
            let before = testRun?.totalFailureCount ?? 0
            do {
                try body(either)
            } catch {
                XCTFail("\(kind): \(error)", file: file, line: line)
            }
            either.closeAll()
            if let after = testRun?.totalFailureCount, after > before {
                XCTFail("the \(after - before) failure(s) above were on \(kind)", file: file, line: line)
            }
        }
    }

    func assertSound(_ library: EitherLibrary, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try library.check(), [], "\(library.kind)", file: file, line: line)
    }
}
