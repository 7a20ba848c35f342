import Foundation
import PassStore
import Support

/// SplitMix64: a small deterministic generator, so a seed names the same bytes in every process.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        // Wrapping arithmetic is the algorithm (a Weyl sequence and multiplicative mixing).
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Records with incompressible bytes of a given size, standing in for a .pkpass (a zip of
/// deflated files and PNGs is incompressible too). The library treats bytes as opaque.
enum SyntheticPasses {
    static func bytes(seed: UInt64, count: Int) -> [UInt8] {
        var rng = SplitMix(seed: seed)
        var out = [UInt8]()
        out.reserveCapacity(count + 8)
        while out.count < count {
            withUnsafeBytes(of: rng.next()) { out.append(contentsOf: $0) }
        }
        out.removeLast(out.count - count)
        return out
    }

    static func seed(_ parts: String) -> UInt64 {
        // FNV-1a over the text: stable across processes, unlike Hasher (wrapping multiply is the algorithm).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    static func record(type: String, serial: String, version: Int, size: Int,
                       signingTime: Date? = nil, status: String = "valid") -> PassRecord {
        let bytes = self.bytes(seed: seed("\(type)/\(serial)#\(version)"), count: size)
        return PassRecord(
            id: PassID(passTypeIdentifier: type, serialNumber: serial), teamIdentifier: "TEAM123456",
            status: status, bytes: bytes, sha256: Digest.sha256Hex(bytes),
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
