import Foundation
import PassStore
import Support
import TestRandom

/// Synthetic library records for the store benchmark and the PassStore tests' child processes.
/// Records with incompressible bytes of a given size, standing in for a .pkpass (a zip of
/// deflated files and PNGs is incompressible too). The library treats bytes as opaque.
package enum SyntheticPasses {
    package static func bytes(seed: UInt64, count: Int) -> [UInt8] {
        var rng = SeededGenerator(state: seed)
        var out = [UInt8]()
        out.reserveCapacity(count + 8)
        while out.count < count {
            withUnsafeBytes(of: rng.next()) { out.append(contentsOf: $0) }
        }
        out.removeLast(out.count - count)
        return out
    }

    package static func seed(_ parts: String) -> UInt64 {
        // FNV-1a over the text: stable across processes, unlike Hasher (wrapping multiply is the algorithm).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    package static func record(type: String, serial: String, version: Int, size: Int,
                       signingTime: Date? = nil, status: StoredStatus = .valid) -> PassRecord {
        let bytes = self.bytes(seed: seed("\(type)/\(serial)#\(version)"), count: size)
        return PassRecord(
            id: PassID(passTypeIdentifier: type, serialNumber: serial), teamIdentifier: "TEAM123456",
            status: status, hashed: HashedBytes(bytes),
            organizationName: "Synthetic Air", description: "Boarding pass \(serial)", kind: "boardingPass",
            relevantDate: Date(timeIntervalSince1970: 1_800_000_000 + Double(version)), expirationDate: nil,
            voided: false, signerSubject: "UID=\(type), OU=TEAM123456",
            signingTime: signingTime ?? Date(timeIntervalSince1970: 1_700_000_000 + Double(version)),
            fields: [StoredField(key: "gate", label: "Gate", value: "G\(version)", changeMessage: "Gate changed to %@"),
                     StoredField(key: "seat", label: "Seat", value: "\(serial.count)A")],
            source: PassSource(messageID: "<\(serial)@synthetic.example>", subject: "Your pass", file: nil,
                               receivedAt: Date(timeIntervalSince1970: 1_700_000_000)))
    }
}
