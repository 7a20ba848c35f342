import Foundation

/// Request bodies and query strings the pages send: `application/x-www-form-urlencoded` and
/// `multipart/form-data` (the upload). Bounded: the body was collected under the size limit.
enum WebForm {
    /// name=value pairs; the last of a repeated name wins; nil values for undecodable bytes.
    static func urlEncoded(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else { continue }
            out[name] = value
        }
        return out
    }

    static func decode(_ s: Substring) -> String? {
        var bytes: [UInt8] = []
        var i = s.utf8.startIndex
        let u = s.utf8
        while i < u.endIndex {
            let b = u[i]
            if b == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if b == UInt8(ascii: "%") {
                let h1 = u.index(after: i)
                guard h1 < u.endIndex, u.index(after: h1) < u.endIndex,
                      let hi = hex(u[h1]), let lo = hex(u[u.index(after: h1)]) else { return nil }
                bytes.append(hi << 4 | lo)
                i = u.index(h1, offsetBy: 2)
                continue
            } else {
                bytes.append(b)
            }
            i = u.index(after: i)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x37
        case 0x61...0x66: return b - 0x57
        default: return nil
        }
    }

    /// One part of a multipart form.
    struct Part {
        var name: String
        var filename: String?
        var body: ArraySlice<UInt8>
    }

    /// The boundary of a `multipart/form-data; boundary=…` content type.
    static func boundary(_ contentType: String) -> String? {
        let lower = contentType.lowercased()
        guard lower.hasPrefix("multipart/form-data") else { return nil }
        for param in contentType.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = kv[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// The parts between `--boundary` lines (RFC 7578); nil when the body is not such a form.
    static func multipart(_ body: [UInt8], boundary: String) -> [Part]? {
        let delimiter = Array(("\r\n--" + boundary).utf8)
        // The first delimiter may start the body without its CRLF.
        var data = ArraySlice([0x0D, 0x0A] + body)
        var parts: [Part] = []
        guard let first = find(delimiter, in: data) else { return nil }
        data = data[(first + delimiter.count)...]
        while true {
            if data.starts(with: Array("--".utf8)) { return parts }
            guard data.starts(with: [0x0D, 0x0A]) else { return nil }
            data = data.dropFirst(2)
            guard let headerEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: data) else { return nil }
            let headers = String(decoding: data[data.startIndex..<headerEnd], as: UTF8.self)
            let bodyStart = headerEnd + 4
            guard let next = find(delimiter, in: data[bodyStart...]) else { return nil }
            var name: String?
            var filename: String?
            for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                name = parameter("name", in: line)
                filename = parameter("filename", in: line)
            }
            if let name { parts.append(Part(name: name, filename: filename, body: data[bodyStart..<next])) }
            data = data[(next + delimiter.count)...]
            if parts.count > 16 { return nil }
        }
    }

    static func parameter(_ key: String, in line: Substring) -> String? {
        for piece in line.split(separator: ";").dropFirst() {
            let kv = piece.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == key else { continue }
            var value = kv[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// The index where `needle` first starts in `hay`.
    static func find(_ needle: [UInt8], in hay: ArraySlice<UInt8>) -> Int? {
        guard let first = needle.first, hay.count >= needle.count else { return nil }
        var i = hay.startIndex
        let last = hay.endIndex - needle.count
        while i <= last {
            guard let j = hay[i...last].firstIndex(of: first) else { return nil }
            if hay[j..<(j + needle.count)].elementsEqual(needle) { return j }
            i = j + 1
        }
        return nil
    }
}
