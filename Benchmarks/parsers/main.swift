// Compares WalletPass's own JSON and .strings readers with Foundation's (JSONDecoder with
// and without allowsJSON5, PropertyListSerialization) on real passes and on hostile inputs: what each
// accepts, whether results agree, and the time per file. Built by Benchmarks/parsers/run.sh with
// the real Sources/WalletPass/JSONValue.swift and StringsFile.swift compiled in.
import Foundation

enum PassError { static func quoted(_ s: String) -> String { "\"\(s)\"" } }

func ours(_ b: [UInt8]) -> Any? {
    switch JSONReader.parse(b) { case .success(let v): return plain(v); case .failure: return nil }
}
func plain(_ v: JSONValue) -> Any {
    switch v {
    case .null: return NSNull()
    case .bool(let b): return b
    case .number(let n): return n
    case .string(let s): return s
    case .array(let a): return a.map(plain)
    case .object(let o): return o.mapValues(plain)
    }
}
/// Any JSON through JSONDecoder (Linux's JSONSerialization has no JSON5 option; JSONDecoder has `allowsJSON5`).
enum AnyJSON: Decodable {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])
    init(from decoder: Decoder) throws {
        if var a = try? decoder.unkeyedContainer() {
            var out: [AnyJSON] = []
            while !a.isAtEnd { out.append(try a.decode(AnyJSON.self)) }
            self = .array(out); return
        }
        if let o = try? decoder.container(keyedBy: Key.self) {
            var out: [String: AnyJSON] = [:]
            for k in o.allKeys { out[k.stringValue] = try o.decode(AnyJSON.self, forKey: k) }
            self = .object(out); return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) } else { self = .string(try c.decode(String.self)) }
    }
    struct Key: CodingKey { var stringValue: String; var intValue: Int? { nil }; init(stringValue: String) { self.stringValue = stringValue }; init?(intValue: Int) { nil } }
    var plain: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .number(let n): return n
        case .string(let s): return s
        case .array(let a): return a.map(\.plain)
        case .object(let o): return o.mapValues(\.plain)
        }
    }
}
let plainDecoder = JSONDecoder()
let json5Decoder: JSONDecoder = { let d = JSONDecoder(); d.allowsJSON5 = true; return d }()
func foundation(_ b: [UInt8], json5: Bool) -> Any? {
    (try? (json5 ? json5Decoder : plainDecoder).decode(AnyJSON.self, from: Data(b)))?.plain
}
func same(_ a: Any?, _ b: Any?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return NSDictionary(dictionary: ["v": a]).isEqual(to: ["v": b])
}
func time(_ n: Int, _ body: () -> Void) -> Double {
    let t = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<n { body() }
    return Double(DispatchTime.now().uptimeNanoseconds - t) / 1e3 / Double(n)
}

let root = CommandLine.arguments[1]
let files = FileManager.default.enumerator(atPath: root)!.compactMap { $0 as? String }.sorted()
let jsons = files.filter { $0.hasSuffix("pass.json") }.map { (name: $0, bytes: [UInt8](FileManager.default.contents(atPath: root + "/" + $0)!)) }
let stringsFiles = files.filter { $0.hasSuffix(".strings") }.map { (name: $0, bytes: [UInt8](FileManager.default.contents(atPath: root + "/" + $0)!)) }

print("== pass.json: \(jsons.count) real files (\(jsons.reduce(0) { $0 + $1.bytes.count }) bytes)")
var agree = 0, oursOnly = 0, fOnly = 0, f5agree = 0
for (name, b) in jsons {
    let o = ours(b), f = foundation(b, json5: false), f5 = foundation(b, json5: true)
    if same(o, f) { agree += 1 } else if o != nil && f == nil { oursOnly += 1; print("  ours reads, JSONDecoder rejects: \(name)") } else if f != nil && o == nil { fOnly += 1; print("  JSONDecoder reads, ours rejects: \(name)") } else { print("  both read, results differ: \(name)") }
    if same(o, f5) { f5agree += 1 } else { print("  JSON5 differs: \(name) (ours \(o == nil ? "rejects" : "reads"), json5 \(f5 == nil ? "rejects" : "reads"))") }
}
print("  same result: JSONDecoder \(agree)/\(jsons.count), json5Allowed \(f5agree)/\(jsons.count)")
let n = 200
let tOurs = time(n) { for (_, b) in jsons { _ = JSONReader.parse(b) } }
let tF = time(n) { for (_, b) in jsons { _ = foundation(b, json5: false) } }
let tF5 = time(n) { for (_, b) in jsons { _ = foundation(b, json5: true) } }
print(String(format: "  time for all %d files: ours %.0f us, JSONDecoder %.0f us (%.2fx ours), allowsJSON5 %.0f us (%.2fx ours)", jsons.count, tOurs, tF, tF / tOurs, tF5, tF5 / tOurs))

print("== hostile / edge JSON (ours | JSONDecoder | JSONDecoder allowsJSON5)")
let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000) + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
let cases: [(String, [UInt8])] = [
    ("trailing comma {\"a\":1,}", Array("{\"a\":1,}".utf8)),
    ("UTF-8 BOM", [0xEF, 0xBB, 0xBF] + Array("{\"a\":1}".utf8)),
    ("comment /* */", Array("{/* c */\"a\":1}".utf8)),
    ("single quotes", Array("{'a':1}".utf8)),
    ("unquoted key", Array("{a:1}".utf8)),
    ("hex number 0x10", Array("{\"a\":0x10}".utf8)),
    ("NaN / Infinity", Array("{\"a\":Infinity}".utf8)),
    ("lone surrogate \\ud800", Array("{\"a\":\"\\ud800\"}".utf8)),
    ("invalid UTF-8 in a string", [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]),
    ("duplicate key", Array("{\"a\":1,\"a\":2}".utf8)),
    ("100000 nested arrays", deep),
]
for (label, b) in cases {
    let o = ours(b).map { "\($0)".prefix(30) } ?? "rejects"
    let f = foundation(b, json5: false).map { "\($0)".prefix(30) } ?? "rejects"
    let f5 = foundation(b, json5: true).map { "\($0)".prefix(30) } ?? "rejects"
    print("  \(label): \(o.replacingOccurrences(of: "\n", with: " ")) | \(f.replacingOccurrences(of: "\n", with: " ")) | \(f5.replacingOccurrences(of: "\n", with: " "))")
}

print("== .strings: \(stringsFiles.count) real files")
func plist(_ b: [UInt8]) -> [String: String]? {
    (try? PropertyListSerialization.propertyList(from: Data(b), options: [], format: nil)) as? [String: String]
}
var sAgree = 0
for (name, b) in stringsFiles {
    let o = StringsFile.parse(b), p = plist(b)
    if let p, p == o.entries, o.problem == nil { sAgree += 1 } else { print("  differ: \(name): ours \(o.entries.count) entries\(o.problem.map { " (\($0))" } ?? ""), plist \(p.map { "\($0.count) entries" } ?? "rejects")") }
}
print("  same entries: \(sAgree)/\(stringsFiles.count)")
let ts = time(n) { for (_, b) in stringsFiles { _ = StringsFile.parse(b) } }
let tp = time(n) { for (_, b) in stringsFiles { _ = plist(b) } }
print(String(format: "  time for all %d files: ours %.0f us, PropertyListSerialization %.0f us (%.2fx ours)", stringsFiles.count, ts, tp, tp / ts))
print("== hostile / edge .strings (ours entries | plist)")
let sc: [(String, [UInt8])] = [
    ("UTF-16LE with BOM", [0xFF, 0xFE] + Array("\"a\" = \"b\";".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
    ("UTF-16BE without BOM", Array("\"a\" = \"b\";".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }),
    ("Latin-1 (not UTF-8)", Array("\"a\" = \"caf".utf8) + [0xE9] + Array("\";".utf8)),
    ("missing ';' after 2nd of 3", Array("\"a\" = \"1\";\n\"b\" = \"2\"\n\"c\" = \"3\";".utf8)),
    ("truncated at the end", Array("\"a\" = \"1\";\n\"b\" = \"2".utf8)),
    ("unquoted token key", Array("a = \"1\";".utf8)),
    ("// and /* */ comments", Array("// x\n/* y */\"a\" = \"1\";".utf8)),
    ("\\U20AC escape", Array("\"a\" = \"\\U20AC\";".utf8)),
]
for (label, b) in sc {
    let o = StringsFile.parse(b)
    print("  \(label): \(o.entries.sorted { $0.key < $1.key })\(o.problem.map { " problem: \($0)" } ?? "") | \(plist(b).map { "\($0.sorted { $0.key < $1.key })" } ?? "rejects")")
}
