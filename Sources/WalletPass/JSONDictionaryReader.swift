/// Reads one JSON dictionary of a pass into a typed value: each key read is marked, so what no
/// typed property took stays by name (`remaining`), and a value of the wrong type becomes nil
/// with a sentence in `warnings` (Wallet ignores such a key; it never refuses the pass for it).
struct JSONDictionaryReader {
    private let object: [String: JSONValue]
    /// Where the dictionary sits in pass.json ("semantics", "upcomingPassInformation[2]"), for warnings.
    let path: String
    private var read: Set<String> = []
    var warnings: [String] = []

    init(_ object: [String: JSONValue], path: String) {
        self.object = object
        self.path = path
    }

    /// The keys no typed property read, with their values as written.
    var remaining: [String: JSONValue] { object.filter { !read.contains($0.key) } }

    private mutating func take(_ key: String) -> JSONValue? {
        guard let v = object[key] else { return nil }
        read.insert(key)
        if case .null = v { return nil }
        return v
    }

    private mutating func wrong(_ key: String, _ value: JSONValue, _ wanted: String) {
        warnings.append("\(path).\(key) is \(Self.kind(value)), not \(wanted); it is ignored")
    }

    /// "a string", "a number", "an object"… for sentences.
    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }

    /// Text from a string or a number (a flight number is often written as a number).
    mutating func text(_ key: String) -> String? {
        guard let v = take(key) else { return nil }
        switch v {
        case .string(let s): return s
        case .number: return v.text
        default: wrong(key, v, "text"); return nil
        }
    }

    /// The first of several spellings that is present (Apple renamed some keys).
    mutating func text(_ keys: [String]) -> String? {
        var found: String?
        for key in keys {
            let value = text(key)
            if found == nil { found = value }
        }
        return found
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let v = take(key) else { return nil }
        guard let b = v.lenientBool else { wrong(key, v, "a boolean"); return nil }
        return b
    }

    mutating func bool(_ keys: [String]) -> Bool? {
        var found: Bool?
        for key in keys {
            let value = bool(key)
            if found == nil { found = value }
        }
        return found
    }

    mutating func number(_ key: String) -> Double? {
        guard let v = take(key) else { return nil }
        if let n = v.number { return n }
        if let s = v.string, let n = Double(s), n.isFinite { return n }
        wrong(key, v, "a number")
        return nil
    }

    mutating func date(_ key: String) -> PassDate? {
        guard let v = take(key) else { return nil }
        guard let s = v.string else { wrong(key, v, "a date"); return nil }
        guard let d = PassDate(s) else {
            warnings.append("\(path).\(key) is not a date Wallet reads: \(s.prefix(40))")
            return nil
        }
        return d
    }

    /// A list of texts; a single text is read as a list of one (lenient, as for `performerNames`).
    mutating func texts(_ key: String) -> [String] {
        guard let v = take(key) else { return [] }
        switch v {
        case .array(let a): return a.compactMap { $0.string ?? ($0.number != nil ? $0.text : nil) }
        case .string(let s): return [s]
        default: wrong(key, v, "a list of texts"); return []
        }
    }

    mutating func integers(_ key: String) -> [Int] {
        guard let v = take(key) else { return [] }
        guard let a = v.array else { wrong(key, v, "a list of numbers"); return [] }
        return a.compactMap(\.integer)
    }

    mutating func color(_ key: String) -> PassColor? {
        guard let v = take(key) else { return nil }
        guard let s = v.string, let c = PassColor(s) else { wrong(key, v, "a colour"); return nil }
        return c
    }

    /// A dictionary, or nil with a warning when the key holds something else.
    mutating func object(_ key: String) -> [String: JSONValue]? {
        guard let v = take(key) else { return nil }
        guard let o = v.object else { wrong(key, v, "an object"); return nil }
        return o
    }

    /// A list of dictionaries: items of another type are skipped with a warning.
    mutating func objects(_ key: String) -> [[String: JSONValue]] {
        guard let v = take(key) else { return [] }
        guard let a = v.array else { wrong(key, v, "a list"); return [] }
        var out: [[String: JSONValue]] = []
        for (i, item) in a.enumerated() {
            if let o = item.object { out.append(o) } else {
                warnings.append("\(path).\(key)[\(i)] is \(Self.kind(item)), not an object; it is ignored")
            }
        }
        return out
    }

    /// The raw value, for keys kept as written.
    mutating func raw(_ key: String) -> JSONValue? { take(key) }
}
