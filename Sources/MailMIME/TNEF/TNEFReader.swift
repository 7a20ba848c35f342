/// The attachments inside a TNEF stream (`winmail.dat`, `application/ms-tnef`): what Outlook and
/// Exchange send instead of ordinary MIME attachments when "Rich Text" is on. A pass sent that
/// way reaches a Linux mail reader as one opaque `winmail.dat` part.
///
/// Format: [MS-OXTNEF] §2.1.3 — a signature (0x223E9F78), a two-byte key, then attributes, each
/// `level (1) · id (4, LE: type << 16 | tag) · length (4) · data · checksum (2)`. An attachment
/// starts with `attAttachRendData`; its bytes are `attAttachData`, its name `attAttachTitle`;
/// `attAttachment` holds MAPI properties (§2.1.3.4) that may carry the long file name
/// (PidTagAttachLongFilename 0x3707) and the data again (PidTagAttachDataBinary/Object 0x3701),
/// which win over the legacy attributes, as in Debian's `tnef` (the reference the tests compare with).
///
/// Hostile input is normal: every read is bounds-checked, lengths are converted exactly and must
/// fit in what is left, and the reader stops at `TNEFLimits` (attributes, attachments, bytes).
/// Whatever was read before a defect is returned with the defect described.
package enum TNEFReader {
    package static let signature: [UInt8] = [0x78, 0x9F, 0x3E, 0x22]

    /// Whether `bytes` start like a TNEF stream.
    package static func starts(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.starts(with: signature)
    }

    package static func read(_ bytes: [UInt8], limits: TNEFLimits = .default) -> TNEFContents {
        var cursor = TNEFCursor(bytes[...])
        var result = TNEFContents()
        guard cursor.readBytes(4).map(Array.init) == signature else {
            result.problem = "not a TNEF stream (no 0x223E9F78 signature)"
            return result
        }
        guard cursor.readUInt16() != nil else {
            result.problem = "ends inside its header"
            return result
        }
        var current: TNEFAttachment?
        var attributes = 0
        var total = 0
        func finish() {
            if let done = current, done.data != nil { result.attachments.append(done) }
            current = nil
        }
        while !cursor.isAtEnd {
            attributes += 1
            guard attributes <= limits.maxAttributes else {
                result.problem = "has more than \(limits.maxAttributes) attributes; the rest was not read"
                break
            }
            let offset = cursor.offset
            guard let level = cursor.readUInt8(), let id = cursor.readUInt32(), let declared = cursor.readUInt32() else {
                result.problem = "ends inside an attribute header at byte \(offset)"
                break
            }
            // Int(exactly:) cannot fail for a UInt32 on 64-bit Linux; the length must fit in what is left.
            guard let length = Int(exactly: declared), let data = cursor.readBytes(length), cursor.readUInt16() != nil else {
                result.problem = "attribute 0x\(String(id, radix: 16)) at byte \(offset) declares \(declared) bytes, more than the stream holds"
                break
            }
            guard level == 1 || level == 2 else {
                result.problem = "attribute at byte \(offset) has level \(level) (neither message nor attachment)"
                break
            }
            total += length   // each term fits in the input, so the sum stays below its size
            guard total <= limits.maxTotalBytes else {
                result.problem = "holds more than \(limits.maxTotalBytes) bytes of attributes; the rest was not read"
                break
            }
            guard level == 2 else { continue }
            switch id {
            case Attribute.attachRendData:
                finish()
                guard result.attachments.count < limits.maxAttachments else {
                    result.problem = "has more than \(limits.maxAttachments) attachments; the rest were not read"
                    return result
                }
                current = TNEFAttachment()
            case Attribute.attachTitle:
                if current == nil { current = TNEFAttachment() }   // a writer that skips attAttachRendData
                if current?.title == nil { current?.title = legacyString(data) }
            case Attribute.attachData:
                if current == nil { current = TNEFAttachment() }
                if current?.data == nil { current?.data = Array(data) }
            case Attribute.attachment:
                if current == nil { current = TNEFAttachment() }
                let properties = MAPIProperties.read(data, limits: limits)
                if let name = properties.longFilename ?? properties.filename { current?.longName = name }
                if let object = properties.data { current?.data = object }
                if let problem = properties.problem, result.problem == nil {
                    result.problem = "attachment \(result.attachments.count + 1): \(problem)"
                }
            default:
                break
            }
        }
        finish()
        return result
    }

    /// Attribute ids (type << 16 | tag), [MS-OXTNEF] §2.1.3.3.
    enum Attribute {
        static let attachRendData: UInt32 = 0x0006_9002
        static let attachTitle: UInt32 = 0x0001_8010
        static let attachData: UInt32 = 0x0006_800F
        static let attachment: UInt32 = 0x0006_9005
    }

    /// A legacy string attribute: NUL-terminated text in the message's code page. UTF-8 when it
    /// is valid UTF-8, else Windows-1252 read as Latin-1 (the letters file names use agree).
    static func legacyString(_ data: ArraySlice<UInt8>) -> String? {
        let text = data.prefix { $0 != 0 }
        guard !text.isEmpty else { return nil }
        if let utf8 = String(validating: text, as: UTF8.self) { return utf8 }
        return String(decoding: text.map { UInt16($0) }, as: UTF16.self)
    }
}

/// How much of a TNEF stream is read. Each limit stops a stream crafted to cost time or memory:
/// millions of tiny attributes, thousands of attachments, or property counts near 2^32.
package struct TNEFLimits: Sendable, Equatable {
    package var maxAttributes: Int
    package var maxAttachments: Int
    package var maxTotalBytes: Int
    package var maxProperties: Int

    package init(maxAttributes: Int, maxAttachments: Int, maxTotalBytes: Int, maxProperties: Int) {
        self.maxAttributes = maxAttributes
        self.maxAttachments = maxAttachments
        self.maxTotalBytes = maxTotalBytes
        self.maxProperties = maxProperties
    }

    package static let `default` = TNEFLimits(maxAttributes: 10_000, maxAttachments: 500,
                                              maxTotalBytes: 64 * 1024 * 1024, maxProperties: 10_000)
}

/// What a TNEF stream holds: its attachments (with data), and why reading stopped early, if it did.
package struct TNEFContents: Sendable, Equatable {
    package var attachments: [TNEFAttachment] = []
    package var problem: String?
}

package struct TNEFAttachment: Sendable, Equatable {
    /// attAttachTitle: the 8.3 or short name.
    package var title: String?
    /// PidTagAttachLongFilename (else PidTagAttachFilename) from the MAPI properties.
    package var longName: String?
    package var data: [UInt8]?

    /// The name a person would see: the long name, else the title.
    package var name: String? { longName ?? title }
}

/// The few MAPI properties of an attachment that matter here ([MS-OXTNEF] §2.1.3.4, types from
/// [MS-OXCDATA] §2.11.1). Every property is walked, to find the ones after it.
struct MAPIProperties {
    var longFilename: String?
    var filename: String?
    var data: [UInt8]?
    var problem: String?

    static let typeMultiple: UInt16 = 0x1000

    static func read(_ bytes: ArraySlice<UInt8>, limits: TNEFLimits) -> MAPIProperties {
        var cursor = TNEFCursor(bytes)
        var result = MAPIProperties()
        guard let count = cursor.readUInt32() else {
            result.problem = "its MAPI properties end before their count"
            return result
        }
        guard count <= UInt32(limits.maxProperties) else {
            result.problem = "declares \(count) MAPI properties (at most \(limits.maxProperties) are read)"
            return result
        }
        for _ in 0..<count {
            guard let type = cursor.readUInt16(), let tag = cursor.readUInt16() else {
                result.problem = "its MAPI properties are cut short"
                return result
            }
            if tag >= 0x8000 {   // a named property: GUID, kind, then a number or a padded name
                guard cursor.readBytes(16) != nil, let kind = cursor.readUInt32() else { result.problem = "a named MAPI property is cut short"; return result }
                if kind == 0 {
                    guard cursor.readUInt32() != nil else { result.problem = "a named MAPI property is cut short"; return result }
                } else {
                    guard let length = cursor.readUInt32().flatMap({ Int(exactly: $0) }), cursor.readPadded(length) != nil else {
                        result.problem = "a named MAPI property's name is cut short"
                        return result
                    }
                }
            }
            let base = type & ~typeMultiple
            let multiple = type & typeMultiple != 0
            let values: Int
            if multiple || isVariable(base) {
                guard let n = cursor.readUInt32(), n <= UInt32(limits.maxProperties) else {
                    result.problem = "MAPI property 0x\(String(tag, radix: 16)) declares too many values"
                    return result
                }
                values = Int(n)
            } else {
                values = 1
            }
            for _ in 0..<values {
                if isVariable(base) {
                    guard let length = cursor.readUInt32().flatMap({ Int(exactly: $0) }), let value = cursor.readPadded(length) else {
                        result.problem = "MAPI property 0x\(String(tag, radix: 16)) declares more bytes than it holds"
                        return result
                    }
                    switch (tag, base) {
                    case (0x3707, 0x001E), (0x3707, 0x001F): result.longFilename = text(value, unicode: base == 0x001F)
                    case (0x3704, 0x001E), (0x3704, 0x001F): result.filename = text(value, unicode: base == 0x001F)
                    case (0x3701, 0x0102): result.data = Array(value)
                    case (0x3701, 0x000D):
                        // An object starts with the 16-byte interface id; the object's bytes follow.
                        if value.count >= 16 { result.data = Array(value.dropFirst(16)) }
                    default: break
                    }
                } else {
                    guard let size = fixedSize(base) else {
                        result.problem = "MAPI property 0x\(String(tag, radix: 16)) has unknown type 0x\(String(type, radix: 16))"
                        return result
                    }
                    guard cursor.readBytes(size) != nil else {
                        result.problem = "MAPI property 0x\(String(tag, radix: 16)) is cut short"
                        return result
                    }
                }
            }
        }
        return result
    }

    /// String8, Unicode string, binary, object: a length, the bytes, padding to 4.
    static func isVariable(_ type: UInt16) -> Bool {
        type == 0x001E || type == 0x001F || type == 0x0102 || type == 0x000D
    }

    /// Bytes a fixed-size value takes in the stream (16-bit values are padded to 4).
    static func fixedSize(_ type: UInt16) -> Int? {
        switch type {
        case 0x0001: return 0           // PtypNull
        case 0x0002, 0x0003, 0x0004, 0x000A, 0x000B: return 4
        case 0x0005, 0x0006, 0x0007, 0x0014, 0x0040: return 8
        case 0x0048: return 16          // PtypGuid
        default: return nil
        }
    }

    static func text(_ value: ArraySlice<UInt8>, unicode: Bool) -> String? {
        if unicode {
            var units: [UInt16] = []
            units.reserveCapacity(value.count / 2)
            var i = value.startIndex
            while i + 1 < value.endIndex {   // i + 1 < endIndex: both bytes are inside the slice
                let unit = UInt16(value[i]) | UInt16(value[i + 1]) << 8
                if unit == 0 { break }
                units.append(unit)
                i += 2
            }
            return units.isEmpty ? nil : String(decoding: units, as: UTF16.self)
        }
        return TNEFReader.legacyString(value)
    }
}

/// Little-endian reads over a slice that return nil rather than read past the end.
struct TNEFCursor {
    private var rest: ArraySlice<UInt8>
    private let start: Int

    init(_ bytes: ArraySlice<UInt8>) {
        rest = bytes
        start = bytes.startIndex
    }

    var isAtEnd: Bool { rest.isEmpty }
    var offset: Int { rest.startIndex - start }

    mutating func readBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= rest.count else { return nil }
        let taken = rest.prefix(count)
        rest = rest.dropFirst(count)
        return taken
    }

    /// `count` bytes, then skips padding to a multiple of 4 (missing padding at the very end is tolerated).
    mutating func readPadded(_ count: Int) -> ArraySlice<UInt8>? {
        guard let value = readBytes(count) else { return nil }
        let pad = (4 - count % 4) % 4
        rest = rest.dropFirst(min(pad, rest.count))
        return value
    }

    mutating func readUInt8() -> UInt8? { readBytes(1)?.first }

    mutating func readUInt16() -> UInt16? {
        guard let b = readBytes(2) else { return nil }
        return UInt16(b[b.startIndex]) | UInt16(b[b.startIndex + 1]) << 8
    }

    mutating func readUInt32() -> UInt32? {
        guard let b = readBytes(4) else { return nil }
        return b.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}
