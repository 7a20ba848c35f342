/// One message handed out by a mailbox reader.
package struct MailboxMessage: Sendable {
    /// 1-based position in its mailbox (what a person calls "message 3").
    package var index: Int
    /// The message bytes (mbox: From_ line and separator blank line removed, `>From ` un-quoted).
    /// Empty when `oversize`. A message of a mapped mbox is a range of the mapping until then:
    /// reading `bytes` copies it out (and un-quotes it) on the thread that asks — each time, so
    /// take it once (issue 17: the copy is the worker's, not the reading thread's).
    package var bytes: [UInt8] {
        get {
            switch storage {
            case .owned(let bytes):
                return bytes
            case .mapped(let file, let range, let unquote):
                let body = file.bytes(range)
                return unquote ? MboxReader.unquote(body) : Array(body)
            }
        }
        set { storage = .owned(newValue) }
    }
    private var storage: Storage
    /// Whether the message is still a range of a mapped file, not yet copied (tests).
    package var isInMapping: Bool {
        if case .mapped = storage { return true }
        return false
    }
    private enum Storage: Sendable {
        case owned([UInt8])
        /// `unquote`: the range may hold mboxrd-quoted From_ lines.
        case mapped(MappedFile, Range<Int>, unquote: Bool)
    }
    /// The file it came from, for Maildir; nil for a stream.
    package var path: String?
    /// The message's true size in the mailbox, also when it was too large to hold.
    package var byteCount: Int
    /// The message exceeded `MIMELimits.maxMessageBytes`; it was skipped over, never buffered whole.
    package var oversize: Bool

    package init(index: Int, bytes: [UInt8], path: String?, byteCount: Int, oversize: Bool) {
        self.index = index
        self.storage = .owned(bytes)
        self.path = path
        self.byteCount = byteCount
        self.oversize = oversize
    }

    /// A message that is `range` of a mapped file (never oversize), copied out when `bytes` is read.
    init(index: Int, mapped file: MappedFile, range: Range<Int>, unquote: Bool) {
        self.index = index
        self.storage = .mapped(file, range, unquote: unquote)
        self.path = nil
        self.byteCount = range.count
        self.oversize = false
    }
}

/// A source of messages, one at a time, in bounded memory.
package protocol MessageReader {
    /// The next message, nil at the end. Throws only I/O errors (`MailboxError`).
    mutating func next() throws -> MailboxMessage?
}

/// What an input holds, detected from content (Maildir from being a directory).
package enum InputFormat: Sendable, Equatable {
    case message, mbox, maildir
}

package enum MailboxFormat {
    /// `.mbox` when the input starts with a From_ line (after an optional UTF-8 BOM), else `.message`.
    package static func detect(prefix: ArraySlice<UInt8>) -> InputFormat {
        var bytes = prefix
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.starts(with: "From ".utf8) ? .mbox : .message
    }
}
