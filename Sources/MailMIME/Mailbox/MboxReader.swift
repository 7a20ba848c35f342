#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits an mbox into messages: a regular file mapped (`init(mappedFile:)`), pages given back
/// behind the reader, or a stream read in large chunks; either way at most one message (plus a
/// chunk) is held in memory.
///
/// A line starting `From ` separates messages when the line after it is a header field: mboxo/mboxcl
/// writers leave body lines like "From Russia with love" unquoted, and no real message continues such
/// a line with `Name:`. A Content-Length header is used only when it is consistent, i.e. it ends the
/// body exactly at a From_ line (or at the end) further on: then `From ` lines inside the body are not
/// separators. mboxrd quoting is undone (`>From ` -> `From `, `>>From ` -> `>From `). A message over
/// `MIMELimits.maxMessageBytes` is skipped with `oversize = true` and its true size.
package struct MboxReader: MessageReader {
    private let input: ChunkedInput
    private let limits: MIMELimits
    private var index = 0
    private var atStart = true

    /// `name` labels I/O errors (a path, "<stdin>"); `chunkSize` is the read size (tests and the fuzzer
    /// make it tiny so messages straddle reads).
    package init(fileDescriptor: Int32, prefix: [UInt8] = [], limits: MIMELimits = .default, name: String? = nil,
                 chunkSize: Int = 4 << 20) {
        input = ChunkedInput(fd: fileDescriptor, name: name ?? "fd \(fileDescriptor)", prefix: prefix, chunkSize: chunkSize)
        self.limits = limits
    }

    /// Reads the regular file open at `fileDescriptor` through a read-only mapping, from byte
    /// `skip` on (noise before the first message); nil when it cannot be mapped (not a regular
    /// file, empty, larger than the mapping cap): then stream it with the other initializer.
    package init?(mappedFile fileDescriptor: Int32, skip: Int = 0, limits: MIMELimits = .default, name: String? = nil) {
        guard let mapped = ChunkedInput(mapping: fileDescriptor, name: name ?? "fd \(fileDescriptor)", skip: skip) else { return nil }
        input = mapped
        self.limits = limits
    }

    /// Reads an input held in memory (an upload), from byte `skip` on.
    package init(bytes: ArraySlice<UInt8>, skip: Int = 0, limits: MIMELimits = .default, name: String) {
        input = ChunkedInput(bytes: bytes, name: name, skip: skip)
        self.limits = limits
    }

    /// Whether the input is read through a mapping (tests).
    package var isMapped: Bool { input.isMapped }

    package mutating func next() throws -> MailboxMessage? {
        // Skip a BOM at the start and blank lines between messages.
        while true {
            if input.count < 3 && !input.eof { try input.fill(); continue }
            if input.count == 0 { return nil }
            if atStart {
                atStart = false
                if input.count >= 3, input.storage[input.start] == 0xEF, input.storage[input.start + 1] == 0xBB,
                   input.storage[input.start + 2] == 0xBF {
                    input.consume(upTo: input.start + 3)
                    continue
                }
            }
            let b = input.storage[input.start]
            if b == 0x0A { input.consume(upTo: input.start + 1); continue }
            if b == 0x0D, input.count >= 2, input.storage[input.start + 1] == 0x0A { input.consume(upTo: input.start + 2); continue }
            break
        }
        // The From_ line (if any) is not part of the message.
        var bodyRel = 0
        while true {
            if let nl = find(0x0A, fromRel: 0) {
                if startsWith("From ", atRel: 0) { bodyRel = nl + 1 }
                break
            }
            if input.eof || input.count > 65_536 {  // no line end: the whole rest is the message
                break
            }
            try input.fill()
        }
        index += 1
        var resume = bodyRel
        // Whether the separator search passed a line that may be mboxrd-quoted (">From ");
        // a message without one is copied out as it is, without a second search (issue 17).
        var quoted = false
        while true {
            switch findSeparator(fromRel: resume, messageRel: bodyRel, quoted: &quoted) {
            case .found(let sepRel):
                let end = try contentLengthEnd(messageRel: bodyRel, separatorRel: sepRel) ?? sepRel
                // A Content-Length past the separator: the bytes after it were not searched.
                return takeMessage(bodyRel: bodyRel, endRel: end, mayBeQuoted: quoted || end != sepRel)
            case .end:
                return takeMessage(bodyRel: bodyRel, endRel: input.count, mayBeQuoted: quoted)
            case .needMore(let resumeRel):
                resume = resumeRel
                // The message is at least resume - bodyRel long (no separator starts before
                // resume); + 2: the separator's blank line (CR LF at most) is not the message's.
                // What is buffered past resume (a From_ line waiting for the line after it) may
                // not grow without bound either.
                if resume - bodyRel > limits.maxMessageBytes + 2 || input.count - bodyRel > limits.maxMessageBytes + (1 << 20) {
                    return try skipOversize(bodyRel: bodyRel, resumeRel: resume)
                }
                try input.fill()
            }
        }
    }

    private enum Search { case found(Int), end, needMore(Int) }

    /// Looks for the next separator line at or after `fromRel` (relative to the unconsumed start).
    /// Sets `quoted` when it passes a line that starts with '>' and may be a quoted From_ line
    /// (one or more '>', then "From ", or too near the end to tell): the same pass over the
    /// bytes tells `takeMessage` whether `unquote` has anything to do.
    private func findSeparator(fromRel: Int, messageRel: Int, quoted: inout Bool) -> Search {
        var rel = max(fromRel, messageRel)
        // The length of "\nFrom " (an array of it was made per message: ~500 instructions, issue 17).
        let needleCount = 6
        var sawQuote = quoted
        defer { quoted = sawQuote }
        while true {
            let base = input.start
            let hit: Int? = { (b: UnsafeBufferPointer<UInt8>) -> Int? in
                // Find each "\nF" and "\n>", then check the rest of "From ".
                var q = base + rel
                while let nl = ByteScan.findNewline(followedBy: 0x46, or: 0x3E, b, from: q, end: input.end) {
                    if b[nl + 1] == 0x3E {
                        if !sawQuote {
                            var k = nl + 1
                            while k < input.end, b[k] == 0x3E { k += 1 }
                            // k + 5 <= input.end is checked before reading b[k + 4].
                            if input.end - k < 5 || (b[k] == 0x46 && b[k + 1] == 0x72 && b[k + 2] == 0x6F
                                                     && b[k + 3] == 0x6D && b[k + 4] == 0x20) {
                                sawQuote = true
                            }
                        }
                        q = nl + 1
                        continue
                    }
                    if input.end - nl < needleCount { return nil }
                    // nl + 5 < input.end was checked just above.
                    if b[nl + 2] == 0x72, b[nl + 3] == 0x6F, b[nl + 4] == 0x6D, b[nl + 5] == 0x20 {
                        return nl - base
                    }
                    q = nl + 1
                }
                return nil
            }(input.storage)
            guard let h = hit else {
                if input.eof { return .end }
                return .needMore(max(messageRel, input.count - needleCount))
            }
            let lineRel = h + 1
            guard let nl = find(0x0A, fromRel: lineRel) else {
                return input.eof ? .end : .needMore(h)
            }
            switch nextLineIsHeader(fromRel: nl + 1) {
            case .some(true) where looksLikeFromLine(lineRel: lineRel, endRel: nl): return .found(lineRel)
            case .some(_): rel = lineRel
            case .none: return input.eof ? .end : .needMore(h)
            }
        }
    }

    /// A From_ line names a sender that is "-" (Netscape), an address or MAILER-DAEMON, or carries a
    /// time of day: "From Russia with love" followed by "Year: 1963" is body text, not a separator.
    private func looksLikeFromLine(lineRel: Int, endRel: Int) -> Bool {
        let s = input.start
        var k = lineRel + 5
        while k < endRel, input.storage[s + k] == 0x20 { k += 1 }
        let tokenStart = k
        var sawAt = false
        while k < endRel, input.storage[s + k] != 0x20, input.storage[s + k] != 0x09, input.storage[s + k] != 0x0D {
            if input.storage[s + k] == UInt8(ascii: "@") { sawAt = true }
            k += 1
        }
        let token = input.storage[(s + tokenStart)..<(s + k)]
        if sawAt || token.elementsEqual("-".utf8) || token.elementsEqual("MAILER-DAEMON".utf8) { return true }
        // A time of day: digit digit ':' digit digit.
        var j = k
        while j + 4 < endRel {
            let b = input.storage[(s + j)..<(s + j + 5)]
            let i0 = b.startIndex
            if b[i0 + 2] == 0x3A, (0x30...0x39).contains(b[i0]), (0x30...0x39).contains(b[i0 + 1]),
               (0x30...0x39).contains(b[i0 + 3]), (0x30...0x39).contains(b[i0 + 4]) { return true }
            j += 1
        }
        return false
    }

    /// Whether the line at `rel` is a header field (`name:`); nil when more input is needed to tell.
    private func nextLineIsHeader(fromRel rel: Int) -> Bool? {
        var k = rel
        var sawName = false
        while true {
            if k >= input.count { return input.eof ? false : nil }
            if k - rel > 1000 { return false }
            let b = input.storage[input.start + k]
            if b == 0x3A { return sawName }
            if ByteClass.isFieldNameByte(b) {
                if sawName && k > rel && ByteClass.isWSP(input.storage[input.start + k - 1]) { return false }
                sawName = true
            } else if !(ByteClass.isWSP(b) && sawName) {
                return false
            }
            k += 1
        }
    }

    /// If the message's Content-Length is consistent and reaches past `separatorRel`, the end it gives.
    private mutating func contentLengthEnd(messageRel: Int, separatorRel: Int) throws -> Int? {
        let headerSpan = min(separatorRel, messageRel + limits.maxHeaderBytes)
        let info = MboxReader.contentLength(input.storage, from: input.start + messageRel, end: input.start + headerSpan)
            .map { (length: $0.length, bodyStart: $0.bodyStart - input.start) }
        guard let info else { return nil }
        let target = info.bodyStart + info.length
        guard target > separatorRel, target - messageRel <= limits.maxMessageBytes else { return nil }
        // Make sure target plus a blank line and "From " are buffered.
        while input.count < target + 8 && !input.eof { try input.fill() }
        var k = target
        if k > input.count { return nil }
        if k == input.count { return k }
        if input.storage[input.start + k] == 0x0A { k += 1 }
        else if k + 1 < input.count, input.storage[input.start + k] == 0x0D, input.storage[input.start + k + 1] == 0x0A { k += 2 }
        if k == input.count || startsWith("From ", atRel: k) {
            return k
        }
        return nil
    }

    /// The first Content-Length field of the header section in `from..<end` (digits and
    /// whitespace only, at most 12 digits) and where the body starts, as `HeaderBlock.parse`
    /// reads the section (folded lines, whitespace before the colon, a non-field line ending it);
    /// nil when there is none or it is not a number. Read in place, one line at a time: every
    /// message of an mbox goes through here, and building the field list for it showed in the
    /// profile (issue 17).
    static func contentLength(_ p: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> (length: Int, bodyStart: Int)? {
        var pos = from
        var found: (valueStart: Int, valueEnd: Int)?
        var inField = false  // the current field is the first Content-Length: its folded lines count
        var bodyStart = end
        while pos < end {
            let (contentEnd, next) = ByteScan.lineEnd(p, from: pos, end: end)
            if contentEnd == pos { bodyStart = next; break }
            let first = p[pos]
            if ByteClass.isWSP(first) {
                if inField, let f = found { found = (f.valueStart, contentEnd) }
                pos = next
                continue
            }
            var k = pos
            while k < contentEnd, ByteClass.isFieldNameByte(p[k]) { k += 1 }
            let nameEnd = k
            while k < contentEnd, ByteClass.isWSP(p[k]) { k += 1 }
            guard nameEnd > pos, k < contentEnd, p[k] == 0x3A else { bodyStart = pos; break }
            inField = false
            if found == nil, nameEnd - pos == 14, p[pos] | 0x20 == UInt8(ascii: "c"),
               ByteScan.equalsLowercase(UnsafeBufferPointer(rebasing: p[pos..<nameEnd]), "content-length") {
                found = (k + 1, contentEnd)
                inField = true
            }
            pos = next
        }
        guard let f = found else { return nil }
        var n = 0
        var digits = 0
        var k = f.valueStart
        while k < f.valueEnd {
            let c = p[k]
            if c >= 0x30 && c <= 0x39 {
                guard digits < 12 else { return nil }
                n = n * 10 + Int(c - 0x30)  // at most 12 digits: no overflow
                digits += 1
            } else if !ByteClass.isLWSP(c) { return nil }
            k += 1
        }
        return digits > 0 ? (n, bodyStart) : nil
    }

    /// Copies the message out (trimming the separator blank line and undoing mboxrd quoting) and
    /// consumes it; from a mapped file it hands out the range, copied when the message is scanned.
    /// `mayBeQuoted` false: the separator search saw no line that `unquote` would change after
    /// the first, so only the first line is looked at.
    private mutating func takeMessage(bodyRel: Int, endRel: Int, mayBeQuoted: Bool) -> MailboxMessage {
        var endRel = endRel
        let s = input.start
        // The blank line before the next From_ line is the separator's, not the message's.
        if endRel - bodyRel >= 2, input.storage[s + endRel - 1] == 0x0A {
            if input.storage[s + endRel - 2] == 0x0A { endRel -= 1 }
            else if endRel - bodyRel >= 4, input.storage[s + endRel - 2] == 0x0D, input.storage[s + endRel - 3] == 0x0A,
                    input.storage[s + endRel - 4] == 0x0D { endRel -= 2 }
        }
        let count = endRel - bodyRel
        let oversize = count > limits.maxMessageBytes
        let body = UnsafeBufferPointer(rebasing: input.storage[(s + bodyRel)..<(s + endRel)])
        let unquote = mayBeQuoted || body.first == UInt8(ascii: ">")
        let message: MailboxMessage
        if !oversize, let file = input.file {
            // A mapped file's message stays in the mapping: whoever scans it copies it out.
            message = MailboxMessage(index: index, mapped: file, range: (s + bodyRel)..<(s + endRel), unquote: unquote)
        } else {
            let bytes = oversize ? [] : unquote ? MboxReader.unquote(body) : Array(body)
            message = MailboxMessage(index: index, bytes: bytes, path: nil, byteCount: count, oversize: oversize)
        }
        input.consume(upTo: s + endRel)
        return message
    }

    /// Skips an oversize message without holding it: counts bytes up to the next separator.
    /// Its size is counted as `takeMessage` counts one (the separator's blank line is not the
    /// message's), so a mapped file and the same bytes streamed report the same sizes.
    private mutating func skipOversize(bodyRel: Int, resumeRel: Int) throws -> MailboxMessage {
        var counted = 0
        var resume = resumeRel
        var bodyRel = bodyRel
        // The last bytes consumed (newest last): the blank line may lie before the buffer's start.
        var history: [UInt8] = []
        func byte(_ rel: Int) -> UInt8? {
            if rel >= 0 { return rel < input.count ? input.storage[input.start + rel] : nil }
            let k = history.count + rel
            return k >= 0 ? history[k] : nil
        }
        func finish(_ endRel: Int) -> MailboxMessage {
            var size = counted + endRel
            if byte(endRel - 1) == 0x0A {
                if byte(endRel - 2) == 0x0A { size -= 1 }
                else if byte(endRel - 2) == 0x0D, byte(endRel - 3) == 0x0A, byte(endRel - 4) == 0x0D { size -= 2 }
            }
            input.consume(upTo: input.start + endRel)
            return MailboxMessage(index: index, bytes: [], path: nil, byteCount: size, oversize: true)
        }
        while true {
            // Drop what can no longer hold a separator start.
            let keepFrom = max(bodyRel, min(resume, input.count))
            counted += keepFrom - bodyRel
            for rel in max(bodyRel, keepFrom - 4)..<keepFrom { history.append(input.storage[input.start + rel]) }
            if history.count > 4 { history.removeFirst(history.count - 4) }
            input.consume(upTo: input.start + keepFrom)
            bodyRel = 0
            resume = 0
            try input.fill()
            var quoted = false  // an oversize message is not copied: nothing to unquote
            switch findSeparator(fromRel: 0, messageRel: 0, quoted: &quoted) {
            case .found(let sepRel):
                return finish(sepRel)
            case .end:
                return finish(input.count)
            case .needMore(let r):
                resume = r
            }
        }
    }

    /// mboxrd: a line of one or more '>' followed by "From " loses one '>'.
    static func unquote(_ p: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        do {
            var out = [UInt8]()
            var copied = 0
            var q = 0
            let n = p.count
            // Only '>' at a line start matters: look at offset 0, then for LF '>' pairs (HTML has
            // '>' everywhere, but rarely at the start of a line).
            while true {
                let gt: Int
                if q == 0 && n > 0 && p[0] == UInt8(ascii: ">") {
                    gt = 0
                } else if let lf = ByteScan.findNewline(followedBy: UInt8(ascii: ">"), p, from: max(q, 1) - 1, end: n) {
                    gt = lf + 1
                } else {
                    break
                }
                q = gt + 1
                var k = gt
                while k < n, p[k] == UInt8(ascii: ">") { k += 1 }
                guard n - k >= 5, p[k] == 0x46, p[k + 1] == 0x72, p[k + 2] == 0x6F, p[k + 3] == 0x6D, p[k + 4] == 0x20 else {
                    q = k
                    continue
                }
                if out.isEmpty { out.reserveCapacity(n) }
                out.append(contentsOf: p[copied..<gt])
                copied = gt + 1
                q = k
            }
            if copied == 0 { return Array(p) }
            out.append(contentsOf: p[copied..<n])
            return out
        }
    }

    private func find(_ byte: UInt8, fromRel: Int) -> Int? {
        ByteScan.find(byte, input.storage, from: input.start + fromRel, end: input.end).map { $0 - input.start }
    }

    private func startsWith(_ literal: StaticString, atRel rel: Int) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard input.count - rel >= n else { return false }
        return literal.withUTF8Buffer { lit in
            for k in 0..<n where input.storage[input.start + rel + k] != lit[k] { return false }
            return true
        }
    }
}
