/// A JSON value as pass.json and manifest.json need it.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// JSON bytes (an API request's body) as a value; nil when they are not JSON. Unlike
    /// Foundation's JSONSerialization on Linux, a number and a boolean stay apart (`1` is not
    /// `true`).
    package static func parse(_ bytes: [UInt8]) -> JSONValue? { try? JSONReader.parse(bytes).get() }

    package var string: String? { if case .string(let s) = self { return s }; return nil }
    package var number: Double? { if case .number(let n) = self { return n }; return nil }
    /// A whole number that fits an Int exactly ("1e400" is infinity, 2.5 is not whole: both nil).
    package var integer: Int? { number.flatMap { Int(exactly: $0) } }
    package var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    package var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }

    /// A boolean, also from the strings "true"/"false" and the numbers 0/1 that real passes use.
    package var lenientBool: Bool? {
        switch self {
        case .bool(let b): return b
        case .string(let s): return s == "true" ? true : s == "false" ? false : nil
        case .number(let n): return n == 1 ? true : n == 0 ? false : nil
        default: return nil
        }
    }

    /// Text of a string or number (numbers printed without a trailing ".0" when whole).
    package var text: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return JSONValue.format(n)
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }

    static func format(_ n: Double) -> String {
        if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }
}

/// A JSON reader over bytes, lenient exactly where Wallet is: a UTF-8 byte-order mark and trailing
/// commas before `]`/`}` (Apple's own sample pass has them). Everything else is strict RFC 8259.
/// Depth is bounded (`maxDepth`), so hostile nesting cannot exhaust the stack.
///
/// Why not Foundation (measured by `Benchmarks/parsers/run.sh`, figures in its results.txt): on
/// the 71 real pass.json files of corpus/pkpass-real both give the same values, but
/// - JSONDecoder (the only Foundation reader with `allowsJSON5` on Linux; JSONSerialization has no
///   JSON5 option there) takes 11.4x our time for untyped JSON (7.7x with allowsJSON5);
/// - `allowsJSON5` is more lenient than Wallet: comments, single quotes, unquoted keys, hex numbers
///   and Infinity would make passes "valid" here that an iPhone rejects. Plain JSONDecoder already
///   takes the trailing commas we need;
/// - JSONDecoder rejects a whole pass.json for one lone surrogate escape or one invalid UTF-8 byte
///   in a string; we keep the pass and show U+FFFD (text from a pass is display-only);
/// - duplicate keys: JSONDecoder keeps the first, we keep the last (unchanged behaviour).
struct JSONReader {
    struct Failure: Error, Equatable {
        var offset: Int
        var reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    private let bytes: [UInt8]
    private var p: Int
    private let maxDepth: Int

    static func parse(_ bytes: [UInt8], maxDepth: Int = 64) -> Result<JSONValue, Failure> {
        var r = JSONReader(bytes: bytes, p: 0, maxDepth: maxDepth)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { r.p = 3 }
        do {
            let v = try r.value(depth: 0)
            r.skipSpace()
            guard r.p == bytes.count else { throw Failure(offset: r.p, reason: "unexpected data after the JSON value") }
            return .success(v)
        } catch let f as Failure {
            return .failure(f)
        } catch {
            return .failure(Failure(offset: r.p, reason: "\(error)"))
        }
    }

    private mutating func fail(_ reason: String) -> Failure { Failure(offset: p, reason: reason) }

    private mutating func skipSpace() {
        while p < bytes.count, bytes[p] == 0x20 || bytes[p] == 0x0A || bytes[p] == 0x0D || bytes[p] == 0x09 { p += 1 }
    }

    private mutating func value(depth: Int) throws -> JSONValue {
        guard depth < maxDepth else { throw fail("nested deeper than \(maxDepth) levels") }
        skipSpace()
        guard p < bytes.count else { throw fail("unexpected end of data") }
        switch bytes[p] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character")
        }
    }

    private mutating func literal(_ word: String) throws {
        for c in word.utf8 {
            guard p < bytes.count, bytes[p] == c else { throw fail("unknown literal") }
            p += 1
        }
    }

    private mutating func object(depth: Int) throws -> JSONValue {
        p += 1  // {
        var result: [String: JSONValue] = [:]
        skipSpace()
        if p < bytes.count, bytes[p] == UInt8(ascii: "}") { p += 1; return .object(result) }
        while true {
            skipSpace()
            guard p < bytes.count, bytes[p] == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
            let key = try string()
            skipSpace()
            guard p < bytes.count, bytes[p] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
            p += 1
            result[key] = try value(depth: depth + 1)  // duplicate keys: the last one wins
            skipSpace()
            guard p < bytes.count else { throw fail("unexpected end of data in an object") }
            if bytes[p] == UInt8(ascii: "}") { p += 1; return .object(result) }
            guard bytes[p] == UInt8(ascii: ",") else { throw fail("expected ',' or '}'") }
            p += 1
            skipSpace()
            if p < bytes.count, bytes[p] == UInt8(ascii: "}") { p += 1; return .object(result) }  // trailing comma
        }
    }

    private mutating func array(depth: Int) throws -> JSONValue {
        p += 1  // [
        var result: [JSONValue] = []
        skipSpace()
        if p < bytes.count, bytes[p] == UInt8(ascii: "]") { p += 1; return .array(result) }
        while true {
            result.append(try value(depth: depth + 1))
            skipSpace()
            guard p < bytes.count else { throw fail("unexpected end of data in an array") }
            if bytes[p] == UInt8(ascii: "]") { p += 1; return .array(result) }
            guard bytes[p] == UInt8(ascii: ",") else { throw fail("expected ',' or ']'") }
            p += 1
            skipSpace()
            if p < bytes.count, bytes[p] == UInt8(ascii: "]") { p += 1; return .array(result) }  // trailing comma
        }
    }

    private mutating func number() throws -> Double {
        let start = p
        if bytes[p] == UInt8(ascii: "-") { p += 1 }
        func digits(_ r: inout JSONReader) -> Int {
            let s = r.p
            while r.p < r.bytes.count, r.bytes[r.p] >= 0x30, r.bytes[r.p] <= 0x39 { r.p += 1 }
            return r.p - s
        }
        guard digits(&self) > 0 else { throw fail("malformed number") }
        if p < bytes.count, bytes[p] == UInt8(ascii: ".") {
            p += 1
            guard digits(&self) > 0 else { throw fail("malformed number") }
        }
        if p < bytes.count, bytes[p] == UInt8(ascii: "e") || bytes[p] == UInt8(ascii: "E") {
            p += 1
            if p < bytes.count, bytes[p] == UInt8(ascii: "+") || bytes[p] == UInt8(ascii: "-") { p += 1 }
            guard digits(&self) > 0 else { throw fail("malformed number") }
        }
        let text = String(decoding: bytes[start..<p], as: UTF8.self)
        guard let v = Double(text) else { throw fail("malformed number") }
        return v
    }

    private mutating func hex4() throws -> UInt32 {
        guard p + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[p]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw fail("bad hex digit in \\u escape")
            }
            v = v << 4 | UInt32(d)
            p += 1
        }
        return v
    }

    private mutating func string() throws -> String {
        p += 1  // opening quote
        var out: [UInt8] = []
        var runStart = p
        while true {
            guard p < bytes.count else { throw fail("unterminated string") }
            let c = bytes[p]
            if c == UInt8(ascii: "\"") {
                defer { p += 1 }
                if out.isEmpty { return String(decoding: bytes[runStart..<p], as: UTF8.self) }  // no escapes: one copy
                out.append(contentsOf: bytes[runStart..<p])
                return String(decoding: out, as: UTF8.self)
            }
            if c < 0x20 { throw fail("control character in a string") }
            if c != UInt8(ascii: "\\") { p += 1; continue }
            out.append(contentsOf: bytes[runStart..<p])
            p += 1
            guard p < bytes.count else { throw fail("unterminated escape") }
            let e = bytes[p]
            p += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), p + 6 <= bytes.count,
                   bytes[p] == UInt8(ascii: "\\"), bytes[p + 1] == UInt8(ascii: "u") {
                    let save = p
                    p += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        p = save
                    }
                }
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"  // lone surrogates become U+FFFD
                out.append(contentsOf: Array(String(u).utf8))
            default: throw fail("unknown escape")
            }
            runStart = p
        }
    }
}
