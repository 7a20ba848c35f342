import Foundation
import PostgresTestKit
import XCTest
@testable import PassStore
@testable import PassStoreSQLite
import PassStorePostgres

/// The two library backends the behaviour tests run against.
enum BackendKind: String, CaseIterable, Sendable {
    case sqlite, postgresql
}

/// One test's library on one backend: a fresh SQLite file, or a fresh library user in the
/// PassStore tests' database on the tests' own PostgreSQL server (one database, many users).
final class BackendFactory: @unchecked Sendable {
    let kind: BackendKind
    let dir = TempDir()
    let user = "u" + UUID().uuidString.prefix(8).lowercased()
    private var opened: [any PassLibraryBackend] = []

    init(_ kind: BackendKind) { self.kind = kind }

    /// The location `open` uses: the file path, or the server URI.
    var location: String {
        get throws {
            switch kind {
            case .sqlite: return dir.library
            case .postgresql: return try SharedPostgres.location()
            }
        }
    }

    /// Opens (again) this test's library; another call is another connection, as another
    /// process would have.
    func open(clock: SteppingClock = SteppingClock(), configure: (inout LibraryOptions) -> Void = { _ in }) async throws -> any PassLibraryBackend {
        var options = LibraryOptions()
        options.now = { clock.now() }
        options.user = user
        configure(&options)
        let library: any PassLibraryBackend
        switch kind {
        case .sqlite: library = try PassLibrary(path: dir.library, options: options)
        case .postgresql: library = try await PostgresLibrary.open(try SharedPostgres.location(), options: options)
        }
        opened.append(library)
        return library
    }

    func closeAll() async {
        for library in opened { await library.close() }
        opened = []
    }
}

/// The server and database the PassStore tests share (started once per test process).
enum SharedPostgres {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var database: String?

    static var server: PostgresTestServer { get throws { try PostgresTestServer.shared } }

    static func location() throws -> String {
        lock.lock(); defer { lock.unlock() }
        let server = try PostgresTestServer.shared
        if database == nil { database = try server.database() }
        return server.location(database: database!)
    }
}

extension XCTestCase {
    /// Runs `body` once per backend, each with a library of its own; a failure names the backend.
    func forEachBackend(file: StaticString = #filePath, line: UInt = #line,
                        _ body: (BackendFactory) async throws -> Void) async {
        for kind in BackendKind.allCases {
            let factory = BackendFactory(kind)
            do {
                try await body(factory)
            } catch {
                XCTFail("\(kind): \(error)", file: file, line: line)
            }
            await factory.closeAll()
        }
    }

    /// Expects `body` to fail with a `LibraryError` of `kind`.
    func expectLibraryError<T>(_ kind: LibraryError.Kind, _ backend: BackendKind, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () async throws -> T) async {
        do {
            _ = try await body()
            XCTFail("\(backend): expected a \(kind) error", file: file, line: line)
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, kind, "\(backend): \(error)", file: file, line: line)
        } catch {
            XCTFail("\(backend): expected a LibraryError \(kind), got \(error)", file: file, line: line)
        }
    }

    func assertSound(_ library: any PassLibraryBackend, _ backend: BackendKind, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            let problems = try await library.check()
            XCTAssertEqual(problems, [], "\(backend)", file: file, line: line)
        } catch {
            XCTFail("\(backend): check failed: \(error)", file: file, line: line)
        }
    }
}
