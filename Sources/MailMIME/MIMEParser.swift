/// Parses a message held in memory into a flat list of parts without decoding any body.
///
/// The work is an explicit state machine (no recursion over the MIME tree): `entity` reads a header
/// section and decides what the entity is; `scan` looks for the next line that is a boundary of any
/// open multipart, innermost first, so a parent's boundary ends children whose close delimiter is
/// missing. Only a base64/QP/uuencoded message/rfc822 body is decoded, because its structure cannot
/// be seen otherwise; it is parsed into a buffer of its own.
package enum MIMEParser {
    package static func parse(_ bytes: [UInt8], limits: MIMELimits = .default) -> MIMEMessage {
        var input = bytes
        var topDefects: [MIMEDefect] = []
        if input.count > limits.maxMessageBytes {
            topDefects.append(MIMEDefect(.messageTooLarge, offset: limits.maxMessageBytes,
                                         detail: "\(input.count) bytes; only the first \(limits.maxMessageBytes) parsed"))
            input = Array(input.prefix(max(0, limits.maxMessageBytes)))
        }
        var state = ParseState(limits: limits)
        state.buffers.append(input)
        let root = RootSpec(buffer: 0, depth: 0, pathIfLeaf: "1", pathIfMultipart: "", childPrefix: "", skipFromLine: true)
        var parts = state.parseBuffer(root)
        // Message-level defects first, then each part's own, in document order.
        var defects = topDefects + state.globalDefects
        for i in parts.indices { defects.append(contentsOf: parts[i].defects) }
        if parts.isEmpty {  // only possible with maxParts <= 0
            parts = []
        }
        return MIMEMessage(headerRange: parts.first?.headerRange, headerLimit: limits.maxHeaderBytes,
                           parts: parts, defects: defects, buffers: state.buffers)
    }
}

/// Where a buffer's root entity sits in the whole tree.
struct RootSpec {
    var buffer: Int
    var depth: Int
    var pathIfLeaf: String
    var pathIfMultipart: String
    var childPrefix: String
    var skipFromLine: Bool
}

struct ParseState {
    let limits: MIMELimits
    var buffers: [[UInt8]] = []
    var globalDefects: [MIMEDefect] = []
    var partCount = 0
    var partCapReported = false

    init(limits: MIMELimits) { self.limits = limits }

    /// An open container on the stack.
    struct Frame {
        /// The boundary bytes of a multipart; nil for an encapsulated message.
        var boundary: [UInt8]?
        var part: Int?
        var closed = false
        var children = 0
        var childPrefix: String
        /// The path the container gets if it turns out to have no children.
        var leafPath: String
        var childDepth: Int
        var isDigest: Bool
    }

    enum Step {
        case entity(pos: Int, depth: Int, leafPath: String, multipartPath: String, childPrefix: String,
                    defaultType: ContentType, parent: Int?, skipFromLine: Bool)
        case scan(from: Int, leaf: Int?)
        case done
    }

    /// Parses one buffer; returns its parts (with encoded encapsulated messages spliced in after their part).
    mutating func parseBuffer(_ root: RootSpec) -> [MIMEPart] {
        let buffer = buffers[root.buffer]
        var parts: [MIMEPart] = []
        var deferred: [Int] = []
        buffer.withUnsafeBufferPointer { p in
            var machine = Machine(p: p, source: buffer, bufferIndex: root.buffer, limits: limits)
            var step = Step.entity(pos: 0, depth: root.depth, leafPath: root.pathIfLeaf, multipartPath: root.pathIfMultipart,
                                   childPrefix: root.childPrefix, defaultType: .textPlain, parent: nil, skipFromLine: root.skipFromLine)
            while true {
                switch step {
                case .done:
                    parts = machine.parts
                    deferred = machine.deferred
                    return
                case let .entity(pos, depth, leafPath, multipartPath, childPrefix, defaultType, parent, skipFromLine):
                    step = machine.entity(at: pos, depth: depth, leafPath: leafPath, multipartPath: multipartPath,
                                          childPrefix: childPrefix, defaultType: defaultType, parent: parent,
                                          skipFromLine: skipFromLine, state: &self)
                case let .scan(from, leaf):
                    step = machine.scan(from: from, leaf: leaf)
                }
            }
        }
        guard !deferred.isEmpty else { return parts }
        // Decode and parse each encoded encapsulated message, then splice its parts in after it.
        var spliced: [MIMEPart] = []
        spliced.reserveCapacity(parts.count)
        var remap = [Int](repeating: 0, count: parts.count)
        var insertions: [Int: [MIMEPart]] = [:]
        for index in deferred {
            let part = parts[index]
            let decoded = TransferDecoder.decode(buffer[part.bodyRange], encoding: part.transferEncoding)
            buffers.append(decoded)
            let inner = RootSpec(buffer: buffers.count - 1, depth: part.depth + 1, pathIfLeaf: part.path.isEmpty ? "1" : part.path + ".1",
                                 pathIfMultipart: part.path + ".TEXT", childPrefix: part.path, skipFromLine: true)
            insertions[index] = parseBuffer(inner)
        }
        for (i, part) in parts.enumerated() {
            remap[i] = spliced.count
            var copy = part
            if let parent = copy.parent, parent < i { copy.parent = remap[parent] }
            if let inner = insertions[i] {
                copy.isEncapsulatedMessage = !inner.isEmpty
                spliced.append(copy)
                let base = spliced.count
                let selfIndex = remap[i]
                for var child in inner {
                    // Inner parents index `inner`; the inner root (parent nil) belongs to the message part.
                    child.parent = child.parent.map { base + $0 } ?? selfIndex
                    spliced.append(child)
                }
            } else {
                spliced.append(copy)
            }
        }
        return spliced
    }

    /// Counts a new part against `maxParts`; false (and one defect) once the cap is reached.
    mutating func admitPart(offset: Int) -> Bool {
        if partCount >= limits.maxParts {
            if !partCapReported {
                partCapReported = true
                globalDefects.append(MIMEDefect(.tooManyParts, offset: offset, detail: "more than \(limits.maxParts) parts; the rest are not listed"))
            }
            return false
        }
        partCount += 1
        return true
    }
}
