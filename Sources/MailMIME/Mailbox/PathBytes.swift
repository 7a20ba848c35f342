#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File names are bytes on Linux, not text: `caf\xe9.pkpass` (Latin-1) is a valid name that is
/// not UTF-8. A Swift `String` cannot hold such bytes, and every Foundation path API repairs them
/// (U+FFFD), so the file can no longer be opened. passconduit carries a path in a `String` with
/// each byte that is not part of valid UTF-8 written as the private-use scalar U+10FF00 + byte
/// (bytes 0x80–0xFF only: ASCII is always valid), the way Python's PEP 383 "surrogateescape"
/// carries them as U+DC80–U+DCFF. A name that really holds U+10FF80–U+10FFFF has those bytes
/// escaped too, so the mapping is lossless both ways: `bytes(string(b)) == b` for every `b`.
///
/// Only the system-call boundary (`withCString`, `open`, `stat`, directory listing) turns the
/// carrier back into bytes; people see the escaped bytes as `\xe9` (`TerminalText`), JSON
/// carries them as `\udce9` (PEP 383: `os.fsencode(value)` in Python gives the exact bytes).
package enum PathBytes {
    static let base: UInt32 = 0x10FF00

    /// The carrier string for a file name's bytes.
    package static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: { escapedByte($0) != nil }) {
            return text
        }
        var out = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var rest = Array(bytes)[...]
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                let length = encoded.count
                if escapedByte(scalar) != nil {
                    for byte in rest.prefix(length) { out.append(escape(byte)) }
                } else {
                    out.append(scalar)
                }
                rest = rest.dropFirst(length)
            case .error(let length):
                for byte in rest.prefix(length) { out.append(escape(byte)) }
                rest = rest.dropFirst(length)
            case .emptyInput:
                return String(out)
            }
        }
    }

    /// A C string (NUL-terminated) as returned by readdir(3) or held in argv.
    package static func string(cString: UnsafePointer<CChar>) -> String {
        string(UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), count: strlen(cString)))
    }

    /// The exact bytes a carrier string stands for.
    package static func bytes(_ path: String) -> [UInt8] {
        if !path.unicodeScalars.contains(where: { escapedByte($0) != nil }) { return Array(path.utf8) }
        var out: [UInt8] = []
        for scalar in path.unicodeScalars {
            if let byte = escapedByte(scalar) { out.append(byte) } else { out += Array(String(scalar).utf8) }
        }
        return out
    }

    /// Calls `body` with the path's exact bytes as a NUL-terminated C string.
    package static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        var raw = bytes(path)
        raw.append(0)
        return try raw.withUnsafeBufferPointer { buffer in
            // The buffer is NUL-terminated and lives for the whole call.
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// The byte an escape scalar stands for, nil for any other scalar.
    package static func escapedByte(_ scalar: Unicode.Scalar) -> UInt8? {
        let v = scalar.value
        guard v >= base + 0x80 && v <= base + 0xFF else { return nil }
        return UInt8(v - base)
    }

    /// True when the path holds bytes that are not UTF-8.
    package static func hasRawBytes(_ path: String) -> Bool {
        path.unicodeScalars.contains { escapedByte($0) != nil }
    }

    /// `\xe9`: how a byte that is not UTF-8 is shown to people.
    package static func hexEscape(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }

    static func escape(_ byte: UInt8) -> Unicode.Scalar {
        // base + 0x80...0xFF is a valid scalar (plane 16 private use), so the initializer succeeds.
        Unicode.Scalar(base + UInt32(byte))!
    }

    // MARK: System calls on carrier strings

    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        withCString(path) { Glibc.open($0, flags, mode) }
    }

    package static func stat(_ path: String, _ info: inout Glibc.stat) -> Int32 {
        // fstatat: inside this type the name `stat` is the method, and Glibc.stat the struct.
        withCString(path) { fstatat(AT_FDCWD, $0, &info, 0) }
    }

    package static func lstat(_ path: String, _ info: inout Glibc.stat) -> Int32 {
        withCString(path) { fstatat(AT_FDCWD, $0, &info, AT_SYMLINK_NOFOLLOW) }
    }

    /// The names in a directory (no "." or ".."), as carrier strings; nil with errno set when
    /// it cannot be listed.
    package static func directoryNames(_ path: String) -> [String]? {
        directoryEntries(path)?.map(\.name)
    }

    /// The entries of a directory with the type readdir(3) gives (`DT_REG`, `DT_LNK`, ...;
    /// `DT_UNKNOWN` on file systems that do not say), "." and ".." left out, in directory order.
    package static func directoryEntries(_ path: String) -> [(name: String, type: UInt8)]? {
        guard let dir = withCString(path, { opendir($0) }) else { return nil }
        defer { closedir(dir) }
        var entries: [(name: String, type: UInt8)] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    string(cString: $0)
                }
            }
            if name != "." && name != ".." { entries.append((name, entry.pointee.d_type)) }
        }
        return entries
    }

    /// `dir/name` without Foundation (NSString would repair the escapes).
    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
