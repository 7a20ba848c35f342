/// Where the delivery filter may touch a message, found from its first bytes only: the offset
/// after a leading mbox `From ` line (our header lines go there, at the top of the header block),
/// the message's own line-ending style, and the byte ranges of incoming header fields that carry
/// our names anywhere before the first empty line (a sender could forge them to steer Sieve
/// rules, so they are removed).
///
/// Nothing else in the message is ever looked at here, so nothing else can be changed.
package struct FilterMessageLayout: Sendable, Equatable {
    /// Header field names the filter writes, and therefore removes when they arrive (lower case).
    package static let ownFieldNames: [[UInt8]] = [HeaderEdits.summaryName, HeaderEdits.passName].map { Array($0.lowercased().utf8) }

    /// Where inserted header lines go: 0, or just after a leading `From ` line.
    package var insertionOffset: Int
    /// False when the line at `insertionOffset` starts with a space or tab: a header inserted
    /// before it would adopt it as a continuation line (and a second run would remove it as part
    /// of our field), so the filter then adds nothing.
    package var canInsert: Bool = true
    /// `[LF]` or `[CR, LF]`, taken from the first line of the message.
    package var lineEnding: [UInt8]
    /// Incoming fields with one of `ownFieldNames`, each with its continuation lines and line
    /// terminators; ascending, disjoint, all at or after `insertionOffset`.
    package var ownFields: [HeaderEdits.Removal]
    /// The header carries `X-Passconduit-Notice` (`HeaderEdits.noticeName`): a notice passconduit
    /// sent (issue 43), never scanned or staged.
    package var isNotice = false

    package init(insertionOffset: Int, canInsert: Bool = true, lineEnding: [UInt8], ownFields: [HeaderEdits.Removal]) {
        self.insertionOffset = insertionOffset
        self.canInsert = canInsert
        self.lineEnding = lineEnding
        self.ownFields = ownFields
    }

    /// Locates the layout in `prefix`, the first bytes of a message; `isWholeMessage` says whether
    /// `prefix` is all of it. Header lines are examined only within `prefix`: a field whose end is
    /// not inside it (the start of the next line) is left alone, so a truncated view never removes
    /// part of a field.
    package static func locate(_ prefix: ArraySlice<UInt8>, isWholeMessage: Bool) -> FilterMessageLayout {
        let start = prefix.startIndex
        let end = prefix.endIndex
        var position = start
        var lineEnding: [UInt8]? = nil

        // The next line from `from`: (its LF or nil if unterminated, the start of the line after).
        // An unterminated last line counts only when it is known to be the end of the message.
        func line(from: Int) -> (lf: Int?, next: Int)? {
            if let lf = prefix[from...].firstIndex(of: 10) { return (lf, lf + 1) }
            return isWholeMessage && from < end ? (nil, end) : nil
        }

        // A leading mbox separator (`From ` at offset 0) stays first.
        if hasPrefix(prefix, at: start, Array("From ".utf8)) {
            guard let (lf, next) = line(from: start), let lf else {
                return FilterMessageLayout(insertionOffset: 0, lineEnding: [10], ownFields: [])
            }
            lineEnding = endingOfLine(prefix, lf: lf, lineStart: start)
            position = next
        }
        let insertion = position - start
        let canInsert = position >= end || (prefix[position] != 0x20 && prefix[position] != 0x09)

        var own: [HeaderEdits.Removal] = []
        // Fields seen so far per lower-cased name (own names only), for each removal's occurrence.
        var seen: [[UInt8]: Int] = [:]
        var fieldName: [UInt8] = []
        func closeField(at fieldEnd: Int, start s: Int) {
            let key = fieldName.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            seen[key, default: 0] += 1
            own.append(HeaderEdits.Removal(name: String(decoding: fieldName, as: UTF8.self),
                                           occurrence: seen[key]!, range: (s - start)..<(fieldEnd - start)))
        }
        // Walk header lines: field lines and their continuation lines, until the empty line or the
        // end of what we were given. A malformed line (no colon: a stray boundary, a mangled fold)
        // does not end the walk: mail readers and Dovecot go on reading fields after it, so a
        // forged field placed there would still steer a Sieve rule.
        var fieldStart: Int? = nil
        var fieldIsOwn = false
        var stoppedAtForeignLine = false
        var sawNotice = false
        let noticeName = Array(HeaderEdits.noticeName.lowercased().utf8)
        while position < end {
            guard let (lf, next) = line(from: position) else { break }
            if lineEnding == nil, let lf { lineEnding = endingOfLine(prefix, lf: lf, lineStart: position) }
            let lineEnd = lf ?? end
            let first = prefix[position]
            if (first == 0x20 || first == 0x09) && fieldStart != nil {   // continuation line
                position = next
                continue
            }
            // The previous field (if any) ends here.
            if let s = fieldStart, fieldIsOwn { closeField(at: position, start: s) }
            fieldStart = nil
            guard let nameEnd = fieldNameEnd(prefix, lineStart: position, lineEnd: lineEnd) else {
                if lineEnd == position || (lineEnd == position + 1 && prefix[position] == 13) {
                    stoppedAtForeignLine = true   // the empty line: the header block ends
                    break
                }
                position = next                   // a line that is no field: skipped, not the end
                continue
            }
            fieldStart = position
            if !sawNotice, nameEnd - position == noticeName.count {
                sawNotice = zip(noticeName, prefix[position..<nameEnd]).allSatisfy { $0 == ($1 | (($1 >= 0x41 && $1 <= 0x5A) ? 0x20 : 0)) }
            }
            fieldIsOwn = isOwnName(prefix[position..<nameEnd])
            if fieldIsOwn { fieldName = Array(prefix[position..<nameEnd]) }
            position = next
        }
        // A field still open when the walk stopped is complete if the walk stopped at a line that
        // is not part of it (inside `prefix`) or at the end of the whole message.
        if let s = fieldStart, fieldIsOwn, stoppedAtForeignLine || (position == end && isWholeMessage) {
            closeField(at: position, start: s)
        }
        var layout = FilterMessageLayout(insertionOffset: insertion, canInsert: canInsert, lineEnding: lineEnding ?? [10], ownFields: own)
        layout.isNotice = sawNotice
        return layout
    }

    /// The end of a field name (index of the last name byte + 1, trailing WSP excluded) if the line
    /// `[lineStart, lf)` is a header field: printable non-colon bytes, optional WSP, then `:`.
    private static func fieldNameEnd(_ bytes: ArraySlice<UInt8>, lineStart: Int, lineEnd lf: Int) -> Int? {
        var i = lineStart
        while i < lf, bytes[i] >= 33, bytes[i] <= 126, bytes[i] != 0x3A { i += 1 }
        guard i > lineStart else { return nil }
        let nameEnd = i
        while i < lf, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }   // obs-syntax: WSP before the colon
        guard i < lf, bytes[i] == 0x3A else { return nil }
        return nameEnd
    }

    private static func isOwnName(_ name: ArraySlice<UInt8>) -> Bool {
        ownFieldNames.contains { own in
            own.count == name.count && zip(own, name).allSatisfy { $0 == ($1 | (($1 >= 0x41 && $1 <= 0x5A) ? 0x20 : 0)) }
        }
    }

    private static func endingOfLine(_ bytes: ArraySlice<UInt8>, lf: Int, lineStart: Int) -> [UInt8] {
        lf > lineStart && bytes[lf - 1] == 13 ? [13, 10] : [10]
    }

    private static func hasPrefix(_ bytes: ArraySlice<UInt8>, at index: Int, _ p: [UInt8]) -> Bool {
        guard bytes.endIndex - index >= p.count else { return false }
        return bytes[index..<(index + p.count)].elementsEqual(p)
    }
}
