import Foundation
import XCTest
@testable import PassStore
@testable import PassStoreSQLite
import Support
import TestRandom

/// A temporary folder per test, removed afterwards.
final class TempDir {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "passstore-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var library: String { path + "/data/passconduit/library.sqlite" }
}

/// A clock that moves one second per reading, so added/updated/change times are distinct and
/// known in advance.
final class SteppingClock: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Double
    init(start: Double = 1_750_000_000) { seconds = start }
    func now() -> Date {
        lock.lock(); defer { lock.unlock() }
        seconds += 1
        return Date(timeIntervalSince1970: seconds)
    }
}

enum Fixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        let folder = try XCTUnwrap(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// The SATA boarding pass (Kryst0r-Wallet), as the conduit would describe it.
    static func sata() throws -> PassRecord {
        let bytes = try bytes("Kryst0r-Wallet__BoardingPass.pkpass")
        return PassRecord(
            id: PassID(passTypeIdentifier: "pass.com.amadeus.ssci.Cert4", serialNumber: "SP50216JUN5"),
            teamIdentifier: "L7R69DBD7T", status: .valid, hashed: HashedBytes(bytes),
            organizationName: "SATA", description: "SATA Boarding Pass", kind: "boardingPass",
            relevantDate: Date(timeIntervalSince1970: 1_687_000_000), expirationDate: nil, voided: false,
            signerSubject: "C=US, O=Amadeus, OU=L7R69DBD7T, CN=Pass Type ID: pass.com.amadeus.ssci.Cert4",
            signingTime: Date(timeIntervalSince1970: 1_686_821_754),
            fields: [StoredField(key: "gate", label: "GATE", value: "12", changeMessage: "Gate changed to %@"),
                     StoredField(key: "seat", label: "SEAT", value: "14C")],
            source: PassSource(messageID: "<abc@sata.example>", subject: "Your boarding pass", file: nil,
                               receivedAt: Date(timeIntervalSince1970: 1_686_822_000)))
    }

    /// The Skyport Airways pass (NSCoconut).
    static func skyport() throws -> PassRecord {
        let bytes = try bytes("NSCoconut__BoardingPass.pkpass")
        return PassRecord(
            id: PassID(passTypeIdentifier: "pass.com.sebastiandobrincu.BoardingPass", serialNumber: "1234567"),
            teamIdentifier: "AHV753G6S7", status: .valid, hashed: HashedBytes(bytes),
            organizationName: "Skyport Airways", description: "SFO to JFK", kind: "boardingPass",
            signerSubject: "OU=AHV753G6S7, CN=Pass Type ID: pass.com.sebastiandobrincu.BoardingPass",
            signingTime: Date(timeIntervalSince1970: 1_465_544_678),
            source: PassSource(file: "/home/u/BoardingPass.pkpass", receivedAt: Date(timeIntervalSince1970: 1_465_545_000)))
    }
}

/// Synthetic records: incompressible bytes that depend only on (id, version), signed at a time
/// that grows with the version.
enum Synthetic {
    static func bytes(_ label: String, count: Int) -> [UInt8] {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in label.utf8 { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }   // FNV-1a seed; wrapping is the algorithm
        var out = [UInt8]()
        out.reserveCapacity(count)
        var generator = SeededGenerator(state: state)
        while out.count < count {
            withUnsafeBytes(of: generator.next()) { out.append(contentsOf: $0.prefix(count - out.count)) }
        }
        return out
    }

    /// A record of type "pass.example.synthetic".
    static func record(_ serial: String, version: Int = 1, size: Int = 4_000, status: StoredStatus = .valid,
                       team: String = "TEAM000001", signed: Date? = nil, withoutSigningTime: Bool = false,
                       relevant: Date? = nil, fields: [StoredField]? = nil) -> PassRecord {
        record("pass.example.synthetic", serial, version: version, size: size, status: status, team: team,
               signed: signed, withoutSigningTime: withoutSigningTime, relevant: relevant, fields: fields)
    }

    static func record(_ type: String, _ serial: String, version: Int = 1,
                       size: Int = 4_000, status: StoredStatus = .valid, team: String = "TEAM000001",
                       signed: Date? = nil, withoutSigningTime: Bool = false, relevant: Date? = nil,
                       fields: [StoredField]? = nil) -> PassRecord {
        let bytes = bytes("\(type)/\(serial)#\(version)", count: size)
        return PassRecord(
            id: PassID(passTypeIdentifier: type, serialNumber: serial), teamIdentifier: team, status: status,
            hashed: HashedBytes(bytes), organizationName: "Example Org",
            description: "Pass \(serial) v\(version)", kind: "eventTicket", relevantDate: relevant,
            signingTime: withoutSigningTime ? nil : signed ?? Date(timeIntervalSince1970: 1_700_000_000 + Double(version) * 3600),
            fields: fields ?? [StoredField(key: "gate", label: "Gate", value: "G\(version)", changeMessage: "Gate changed to %@")])
    }
}

extension XCTestCase {
    /// A library on a fresh temp path with a stepping clock.
    func makeLibrary(_ dir: TempDir, clock: SteppingClock = SteppingClock(),
                     configure: (inout LibraryOptions) -> Void = { _ in }) throws -> PassLibrary {
        var options = LibraryOptions()
        options.now = { clock.now() }
        configure(&options)
        return try PassLibrary(path: dir.library, options: options)
    }

    func assertLibraryError<T>(_ kind: LibraryError.Kind, _ expression: @autoclosure () throws -> T,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try expression(), file: file, line: line) { error in
            XCTAssertEqual((error as? LibraryError)?.kind, kind, "\(error)", file: file, line: line)
        }
    }

    func assertSound(_ library: PassLibrary, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try library.check(), [], file: file, line: line)
    }
}
