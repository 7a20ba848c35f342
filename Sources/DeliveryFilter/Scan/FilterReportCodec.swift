import Conduit
import PassStore
import WalletPass

/// Carries a scan's reports from the scan worker process to the filter: each field as a
/// netstring (`<decimal length>:<bytes>,`), nine per report, after a `R<count>:` header; a
/// failure is `E` + netstring. Decoding is bounded and returns nil on anything unexpected, so a
/// confused worker can only make the message pass through unscanned.
package enum FilterReportCodec {
    /// The reports, then (when there are any) one entry per library: `L<count>:` and four
    /// netstrings each (library, outcome, error code, error detail).
    package static func encode(_ reports: [FilterPassReport], libraries: [FilterLibraryNote]) -> [UInt8] {
        var out = encode(reports)
        guard !libraries.isEmpty else { return out }
        out += Array("L\(libraries.count):".utf8)
        for note in libraries {
            for field in [note.library, note.outcome, note.error?.code.rawValue, note.error?.detail] {
                netstring(field, into: &out)
            }
        }
        return out
    }

    package static func encode(_ reports: [FilterPassReport]) -> [UInt8] {
        var out = Array("R\(reports.count):".utf8)
        for r in reports {
            for field in [r.status.rawValue, r.library?.rawValue, r.action.rawValue, r.passTypeIdentifier, r.serialNumber,
                          r.organizationName, r.errorCode, r.sha256, r.missingLibrary] {
                netstring(field, into: &out)
            }
        }
        return out
    }

    package static func encodeFailure(_ message: String) -> [UInt8] {
        var out: [UInt8] = [0x45]   // "E"
        netstring(message, into: &out)
        return out
    }

    /// A failure with its code when the code changes what the host must do: a library that is
    /// unavailable is `T` + netstring (the message waits), anything else `E` + netstring.
    package static func encodeFailure(_ error: FilterError) -> [UInt8] {
        if error.code == .libraryFailed {
            // "F" + code + detail: a library error the host's policy decides about.
            var out: [UInt8] = [0x46]
            netstring(error.code.rawValue, into: &out)
            netstring(error.detail, into: &out)
            return out
        }
        guard error.code == .libraryUnavailable else { return encodeFailure(error.detail) }
        var out: [UInt8] = [0x54]   // "T"
        netstring(error.detail, into: &out)
        return out
    }

    /// `.success(reports)`, `.failure(message)` or nil when the bytes are not a well-formed message.
    package static func decode(_ bytes: [UInt8]) -> Result<[FilterPassReport], FilterError>? {
        decodeNoted(bytes).map { $0.map { $0.reports } }
    }

    /// `decode` with the libraries' entries.
    package static func decodeNoted(_ bytes: [UInt8]) -> Result<(reports: [FilterPassReport], libraries: [FilterLibraryNote]), FilterError>? {
        guard bytes.count <= Limits.default.filterReportBytes, let kind = bytes.first else { return nil }
        var cursor = 1
        if kind == 0x45 || kind == 0x54 {
            guard let text = readNetstring(bytes, &cursor), let text, cursor == bytes.count else { return nil }
            return .failure(FilterError(kind == 0x54 ? .libraryUnavailable : .scanFailed, detail: text))
        }
        if kind == 0x46 {
            guard let code = readNetstring(bytes, &cursor), let code, let text = readNetstring(bytes, &cursor), let text,
                  cursor == bytes.count else { return nil }
            return .failure(FilterError(FilterError.code(named: code), detail: text))
        }
        guard kind == 0x52, let count = readNumber(bytes, &cursor, terminator: 0x3A), count <= 100_000 else { return nil }
        var reports: [FilterPassReport] = []
        for _ in 0..<count {
            var fields: [String?] = []
            for _ in 0..<9 {
                guard let f = readNetstring(bytes, &cursor) else { return nil }
                fields.append(f)
            }
            // Strings only here, at the edge: the closed sets must be one of their words.
            guard let status = fields[0].flatMap(PassStatus.init(rawValue:)),
                  let action = fields[2].flatMap(FilterAction.init(rawValue:)) else { return nil }
            let library = fields[1].map(LibraryState.init(rawValue:))
            if case .some(.none) = library { return nil }
            reports.append(FilterPassReport(status: status, library: library ?? nil, action: action,
                                            passTypeIdentifier: fields[3], serialNumber: fields[4],
                                            organizationName: fields[5], errorCode: fields[6], sha256: fields[7],
                                            missingLibrary: fields[8]))
        }
        var libraries: [FilterLibraryNote] = []
        if cursor < bytes.count, bytes[cursor] == 0x4C {   // "L"
            cursor += 1
            guard let count = readNumber(bytes, &cursor, terminator: 0x3A), count <= 100_000 else { return nil }
            for _ in 0..<count {
                var fields: [String?] = []
                for _ in 0..<4 {
                    guard let f = readNetstring(bytes, &cursor) else { return nil }
                    fields.append(f)
                }
                guard let library = fields[0], let outcome = fields[1] else { return nil }
                let error = fields[2].map { FilterError(FilterError.code(named: $0), detail: fields[3] ?? "") }
                libraries.append(FilterLibraryNote(library: library, outcome: outcome, error: error))
            }
        }
        guard cursor == bytes.count else { return nil }
        return .success((reports, libraries))
    }

    /// nil is written as `-,` (no length), so it survives the trip.
    private static func netstring(_ s: String?, into out: inout [UInt8]) {
        guard let s else { out += Array("-,".utf8); return }
        let b = Array(s.utf8)
        out += Array("\(b.count):".utf8)
        out += b
        out.append(0x2C)
    }

    /// Outer nil: malformed. Inner nil: an encoded nil.
    private static func readNetstring(_ b: [UInt8], _ cursor: inout Int) -> String?? {
        if cursor + 1 < b.count, b[cursor] == 0x2D, b[cursor + 1] == 0x2C {
            cursor += 2
            return .some(nil)
        }
        guard let n = readNumber(b, &cursor, terminator: 0x3A), n <= b.count - cursor - 1 else { return nil }
        let text = String(decoding: b[cursor..<(cursor + n)], as: UTF8.self)
        cursor += n
        guard cursor < b.count, b[cursor] == 0x2C else { return nil }
        cursor += 1
        return .some(text)
    }

    private static func readNumber(_ b: [UInt8], _ cursor: inout Int, terminator: UInt8) -> Int? {
        var n = 0
        var digits = 0
        while cursor < b.count, b[cursor] >= 0x30, b[cursor] <= 0x39 {
            guard digits < 9 else { return nil }   // at most 999 999 999: no overflow
            n = n * 10 + Int(b[cursor] - 0x30)
            digits += 1
            cursor += 1
        }
        guard digits > 0, cursor < b.count, b[cursor] == terminator else { return nil }
        cursor += 1
        return n
    }
}
