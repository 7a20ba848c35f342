import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A barcode message's `messageEncoding`: how its characters become the bytes in the symbol.
/// ISO-8859-1 (what nearly every pass names, and the default when it names none) maps each
/// character U+0000-U+00FF to one byte, NUL included; UTF-8 and US-ASCII are done here too;
/// any other IANA name goes through glibc's iconv, strictly (no transliteration, no skipping).
package struct MessageEncoding: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case latin1, utf8, ascii, iconv(String) }
    let kind: Kind
    /// The name as the pass wrote it (for messages).
    package let name: String

    /// Names of ISO-8859-1 in the IANA registry (lower case), plus spellings seen in passes.
    static let latin1Names: Set<String> = [
        "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "iso88591", "latin1", "latin-1", "l1",
        "iso-ir-100", "ibm819", "cp819", "csisolatin1",
    ]
    static let utf8Names: Set<String> = ["utf-8", "utf8", "csutf8"]
    static let asciiNames: Set<String> = ["us-ascii", "ascii", "iso646-us", "ansi_x3.4-1968", "csascii"]

    /// The encoding `name` stands for; throws `unknownEncoding` for a name neither this table nor
    /// iconv knows, or one shaped to smuggle iconv options ("latin1//TRANSLIT").
    package init(_ name: String) throws {
        self.name = name
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        if key.isEmpty || Self.latin1Names.contains(key) { kind = .latin1; return }
        if Self.utf8Names.contains(key) { kind = .utf8; return }
        if Self.asciiNames.contains(key) { kind = .ascii; return }
        // iconv reads "//" suffixes as options and accepts odd spellings; keep to IANA's alphabet.
        guard key.count <= 40, key.unicodeScalars.allSatisfy({
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || "-_.:".unicodeScalars.contains($0)
        }) else { throw BarcodeError.unknownEncoding(name) }
        let cd = iconv_open(key, "UTF-8")
        guard let cd, Int(bitPattern: cd) != -1 else { throw BarcodeError.unknownEncoding(name) }
        iconv_close(cd)
        kind = .iconv(key)
    }

    /// The bytes of `message` in this encoding, or `unrepresentable` naming the first character
    /// that has none.
    package func bytes(_ message: String) throws -> [UInt8] {
        switch kind {
        case .utf8:
            return Array(message.utf8)
        case .latin1, .ascii:
            let top: UInt32 = kind == .latin1 ? 0xFF : 0x7F
            var out: [UInt8] = []
            out.reserveCapacity(message.unicodeScalars.count)
            for (offset, scalar) in message.unicodeScalars.enumerated() {
                guard scalar.value <= top else { throw BarcodeError.unrepresentable(scalar, offset: offset, encoding: name) }
                out.append(UInt8(scalar.value))  // <= 0xFF checked above
            }
            return out
        case .iconv(let key):
            return try Self.iconvBytes(message, charset: key, name: name)
        }
    }

    private static func iconvBytes(_ message: String, charset: String, name: String) throws -> [UInt8] {
        guard let cd = iconv_open(charset, "UTF-8"), Int(bitPattern: cd) != -1 else {
            throw BarcodeError.unknownEncoding(name)
        }
        defer { iconv_close(cd) }
        var input = Array(message.utf8)
        // Any charset iconv knows needs at most 8 bytes for one UTF-8 byte (UTF-32 with a BOM,
        // stateful shift sequences); plus room for the final reset sequence.
        var output = [UInt8](repeating: 0, count: input.count * 8 + 16)
        let inCount = input.count
        let outCount = output.count
        var failedAt: Int?
        var produced = 0
        input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                // Both pointers stay inside these closures; iconv advances copies of them.
                var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBuf.baseAddress)?
                    .assumingMemoryBound(to: CChar.self)
                var inLeft = inCount
                var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuf.baseAddress)?
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outCount
                if inCount > 0, iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) == -1 {
                    failedAt = inCount - inLeft  // EILSEQ (or E2BIG, which the sizing rules out)
                    return
                }
                // Flush: stateful charsets (ISO-2022-JP) return to their initial state.
                if iconv(cd, nil, nil, &outPtr, &outLeft) == -1 { failedAt = inCount; return }
                produced = outCount - outLeft
            }
        }
        if let failedAt {
            // The character starting at UTF-8 offset `failedAt`.
            var utf8Offset = 0
            for (offset, scalar) in message.unicodeScalars.enumerated() {
                if utf8Offset >= failedAt { throw BarcodeError.unrepresentable(scalar, offset: offset, encoding: name) }
                utf8Offset += String(scalar).utf8.count
            }
            throw BarcodeError.unrepresentable(message.unicodeScalars.last ?? " ", offset: max(0, message.unicodeScalars.count - 1), encoding: name)
        }
        return Array(output[0..<produced])
    }
}
