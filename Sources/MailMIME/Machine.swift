/// The parse state machine over one buffer (see `MIMEParser`). Holds the stack of open containers.
struct Machine {
    let p: UnsafeBufferPointer<UInt8>
    /// The array `p` points into: field values are handed out as slices of it, not copies.
    let source: [UInt8]
    let bufferIndex: Int
    let limits: MIMELimits
    var parts: [MIMEPart] = []
    /// Parts that are base64/QP/uuencoded encapsulated messages, parsed after this buffer.
    var deferred: [Int] = []
    var stack: [ParseState.Frame] = []

    init(p: UnsafeBufferPointer<UInt8>, source: [UInt8], bufferIndex: Int, limits: MIMELimits) {
        self.p = p
        self.source = source
        self.bufferIndex = bufferIndex
        self.limits = limits
        // Most messages have a few parts: room for them at once instead of growing 1, 2, 4.
        parts.reserveCapacity(4)
    }

    /// Reads the header section at `pos` and decides what the entity is.
    mutating func entity(at pos: Int, depth: Int, leafPath: String, multipartPath: String, childPrefix: String,
                         defaultType: ContentType, parent: Int?, skipFromLine: Bool, state: inout ParseState) -> ParseState.Step {
        let end = p.count
        let block = HeaderBlock.parse(p, start: pos, end: end, maxBytes: limits.maxHeaderBytes, skipFromLine: skipFromLine) { line in
            self.matchBoundary(at: line) != nil
        }
        guard state.admitPart(offset: pos) else {
            return .scan(from: block.bodyStart, leaf: nil)
        }
        var defects = block.defects
        var typeField: RawField? = nil
        var dispositionField: RawField? = nil
        var encodingField: RawField? = nil
        var subjectField: RawField? = nil
        for field in block.fields {
            let nameLength = field.nameEnd - field.start
            if nameLength == 7, subjectField == nil, p[field.start] | 0x20 == UInt8(ascii: "s"),
               ByteScan.equalsLowercase(UnsafeBufferPointer(rebasing: p[field.start..<field.nameEnd]), "subject") {
                subjectField = field
                continue
            }
            guard nameLength >= 12, p[field.start] | 0x20 == UInt8(ascii: "c") else { continue }
            let name = UnsafeBufferPointer(rebasing: p[field.start..<field.nameEnd])
            if ByteScan.equalsLowercase(name, "content-type") {
                if typeField == nil { typeField = field } else {
                    defects.append(MIMEDefect(.duplicateContentHeader, offset: field.start, detail: "Content-Type repeated; the first one is used"))
                }
            } else if ByteScan.equalsLowercase(name, "content-disposition") {
                if dispositionField == nil { dispositionField = field } else {
                    defects.append(MIMEDefect(.duplicateContentHeader, offset: field.start, detail: "Content-Disposition repeated; the first one is used"))
                }
            } else if ByteScan.equalsLowercase(name, "content-transfer-encoding") {
                if encodingField == nil { encodingField = field } else {
                    defects.append(MIMEDefect(.duplicateContentHeader, offset: field.start, detail: "Content-Transfer-Encoding repeated; the first one is used"))
                }
            }
        }
        var unknownCharsets: [String] = []
        var contentType = defaultType
        if let f = typeField {
            if let parsed = ContentType.parse(value(of: f), unknownCharsets: &unknownCharsets) {
                contentType = parsed
            } else {
                defects.append(MIMEDefect(.invalidContentType, offset: f.start, detail: "unparseable Content-Type; \(ContentType.textPlain.mimeType) assumed"))
                // Keep its parameters (a name= matters even when the type is broken), but never a boundary.
                contentType = .textPlain
                contentType.parameters = ContentType.parseParametersOnly(value(of: f), unknownCharsets: &unknownCharsets)
                contentType.parameters["boundary"] = nil
            }
        }
        let disposition = dispositionField.map { ContentDisposition.parse(value(of: $0), unknownCharsets: &unknownCharsets) }
        // The subject is decoded on demand (MIMEMessage.subject); only its words' charset names are checked here.
        if let f = subjectField, containsWordStart(f) {
            unknownCharsets += EncodedWords.unknownCharsets(in: value(of: f))
        }
        var reportedCharsets: [String] = []
        for name in unknownCharsets where !reportedCharsets.contains(name) && reportedCharsets.count < 8 {
            reportedCharsets.append(name)
            defects.append(MIMEDefect(.unknownCharset, offset: pos, detail: name))
        }
        let encoding = encodingField.map { TransferEncoding(headerValue: value(of: $0)) } ?? .sevenBit
        if case .other(let token) = encoding {
            defects.append(MIMEDefect(.unknownTransferEncoding, offset: encodingField?.start ?? pos, detail: token))
        }
        var filename = disposition?.parameters["filename"] ?? contentType.parameters["name"]
        if let f = filename {
            let trimmed = f.trimmingWhitespace()
            filename = trimmed.isEmpty ? nil : trimmed
        }

        let index = parts.count
        var part = MIMEPart(path: leafPath, depth: depth, contentType: contentType, disposition: disposition, filename: filename,
                            transferEncoding: encoding, isMultipart: false, isEncapsulatedMessage: false,
                            headerRange: pos..<block.headerEnd, bodyRange: block.bodyStart..<end, buffer: bufferIndex,
                            parent: parent, defects: defects)

        if contentType.isMultipart {
            if let boundary = contentType.boundary, !boundary.isEmpty, !boundary.allSatisfy(ByteClass.isWSP) {
                if depth >= limits.maxDepth {
                    part.defects.append(MIMEDefect(.nestingTooDeep, offset: pos, detail: "depth \(depth) reaches the limit \(limits.maxDepth); kept as a leaf"))
                } else {
                    part.isMultipart = true
                    part.path = multipartPath
                    parts.append(part)
                    stack.append(ParseState.Frame(boundary: boundary, part: index, childPrefix: multipartPath.isEmpty ? "" : childPrefix,
                                                  leafPath: leafPath, childDepth: depth + 1, isDigest: contentType.subtype == "digest"))
                    return .scan(from: block.bodyStart, leaf: nil)
                }
            } else {
                part.defects.append(MIMEDefect(.multipartWithoutBoundary, offset: pos, detail: "no boundary parameter; kept as a leaf"))
            }
        } else if contentType.isEncapsulatedMessage {
            if depth >= limits.maxDepth {
                part.defects.append(MIMEDefect(.nestingTooDeep, offset: pos, detail: "depth \(depth) reaches the limit \(limits.maxDepth); kept as a leaf"))
            } else if encoding.isEncoded {
                part.defects.append(MIMEDefect(.encodedMessage, offset: pos, detail: "\(contentType.mimeType) in \(encoding); decoded to parse it"))
                deferred.append(index)
                parts.append(part)
                return .scan(from: block.bodyStart, leaf: index)
            } else {
                part.isEncapsulatedMessage = true
                parts.append(part)
                stack.append(ParseState.Frame(boundary: nil, part: index, childPrefix: leafPath, leafPath: leafPath, childDepth: depth + 1, isDigest: false))
                return .entity(pos: block.bodyStart, depth: depth + 1, leafPath: leafPath.isEmpty ? "1" : leafPath + ".1",
                               multipartPath: leafPath + ".TEXT", childPrefix: leafPath, defaultType: .textPlain, parent: index,
                               skipFromLine: true)
            }
        }
        parts.append(part)
        return .scan(from: block.bodyStart, leaf: index)
    }

    /// Finds the next boundary line of an open multipart; closes what it ends and says what comes next.
    mutating func scan(from: Int, leaf: Int?) -> ParseState.Step {
        let end = p.count
        var q = from
        while let dash = ByteScan.find(0x2D, p, from: q, end: end) {
            // A boundary line starts "--" at the start of a line.
            if dash + 1 < end, p[dash + 1] == 0x2D, dash == from || p[dash - 1] == 0x0A,
               let hit = matchBoundary(at: dash) {
                var bodyEnd = dash
                if dash > from {  // the line break before the boundary belongs to the boundary (RFC 2046 §5.1.1)
                    bodyEnd -= 1
                    if bodyEnd > from, p[bodyEnd - 1] == 0x0D { bodyEnd -= 1 }
                }
                if let leaf { parts[leaf].bodyRange = parts[leaf].bodyRange.lowerBound..<max(parts[leaf].bodyRange.lowerBound, bodyEnd) }
                closeFrames(above: hit.level, at: bodyEnd, offset: dash)
                if hit.isClose {
                    stack[hit.level].closed = true
                    return .scan(from: hit.next, leaf: nil)
                }
                stack[hit.level].children += 1
                let frame = stack[hit.level]
                let number = String(frame.children)
                let path = frame.childPrefix.isEmpty ? number : frame.childPrefix + "." + number
                return .entity(pos: hit.next, depth: frame.childDepth, leafPath: path, multipartPath: path, childPrefix: path,
                               defaultType: frame.isDigest ? .messageRFC822 : .textPlain, parent: frame.part, skipFromLine: false)
            }
            // No boundary can start later on this line: resume at the next line.
            guard let nl = ByteScan.find(0x0A, p, from: dash, end: end) else { break }
            q = nl + 1
        }
        if let leaf { parts[leaf].bodyRange = parts[leaf].bodyRange.lowerBound..<end }
        closeFrames(above: -1, at: end, offset: end)
        return .done
    }

    /// Pops every frame above `level`, ending its part at `bodyEnd`; an unclosed multipart is a defect.
    private mutating func closeFrames(above level: Int, at bodyEnd: Int, offset: Int) {
        while stack.count - 1 > level {
            let frame = stack.removeLast()
            guard let index = frame.part else { continue }
            let lower = parts[index].bodyRange.lowerBound
            parts[index].bodyRange = lower..<max(lower, bodyEnd)
            guard frame.boundary != nil else { continue }
            if frame.children == 0 {
                // No delimiter anywhere: the body is opaque, so hand it out as a leaf a caller can sniff.
                parts[index].isMultipart = false
                parts[index].path = frame.leafPath
                parts[index].defects.append(MIMEDefect(.boundaryNotFound, offset: offset, detail: "no part delimiter found; kept as a leaf"))
            } else if !frame.closed {
                parts[index].defects.append(MIMEDefect(.missingCloseBoundary, offset: offset))
            }
        }
    }

    /// If the line starting at `lineStart` ("--" already seen) is a delimiter of an open multipart,
    /// innermost first: the frame level, whether it is the close delimiter, and the next line's start.
    /// Only whitespace may follow the boundary (or "--" and whitespace), so a boundary that is a
    /// prefix of another never matches the longer one's lines.
    func matchBoundary(at lineStart: Int) -> (level: Int, isClose: Bool, next: Int)? {
        let end = p.count
        var level = stack.count - 1
        while level >= 0 {
            defer { level -= 1 }
            let frame = stack[level]
            guard !frame.closed, let boundary = frame.boundary else { continue }
            let start = lineStart + 2
            guard end - start >= boundary.count else { continue }
            var equal = true
            boundary.withUnsafeBufferPointer { b in
                // start + b.count <= end was checked above.
                equal = memcmp(p.baseAddress! + start, b.baseAddress!, b.count) == 0
            }
            guard equal else { continue }
            var k = start + boundary.count
            var isClose = false
            if k + 1 < end, p[k] == 0x2D, p[k + 1] == 0x2D { isClose = true; k += 2 }
            while k < end, p[k] == 0x20 || p[k] == 0x09 || p[k] == 0x0D { k += 1 }
            if k == end { return (level, isClose, end) }
            if p[k] == 0x0A { return (level, isClose, k + 1) }
        }
        return nil
    }

    /// True when the field's value holds "=?" (read in place: most subjects have no encoded word).
    private func containsWordStart(_ field: RawField) -> Bool {
        var i = field.valueStart
        while i + 1 < field.valueEnd {
            if p[i] == UInt8(ascii: "="), p[i + 1] == UInt8(ascii: "?") { return true }
            i += 1
        }
        return false
    }

    private func value(of field: RawField) -> ArraySlice<UInt8> {
        // valueStart <= valueEnd <= p.count == source.count by construction in HeaderBlock.
        source[field.valueStart..<max(field.valueStart, field.valueEnd)]
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ByteScan {
    /// Case-insensitive comparison of ASCII bytes with a lowercase literal.
    static func equalsLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { lit in
            for k in 0..<lit.count where ByteClass.lower(bytes[k]) != lit[k] { return false }
            return true
        }
    }
}
