/// One message handed out by a mailbox reader.
package struct MailboxMessage: Sendable {
    /// 1-based position in its mailbox (what a person calls "message 3").
    package var index: Int
    /// The message bytes (mbox: From_ line and separator blank line removed, `>From ` un-quoted).
    /// Empty when `oversize`.
    package var bytes: [UInt8]
    /// The file it came from, for Maildir; nil for a stream.
    package var path: String?
    /// The message's true size in the mailbox, also when it was too large to hold.
    package var byteCount: Int
    /// The message exceeded `MIMELimits.maxMessageBytes`; it was skipped over, never buffered whole.
    package var oversize: Bool

    package init(index: Int, bytes: [UInt8], path: String?, byteCount: Int, oversize: Bool) {
        self.index = index
        self.bytes = bytes
        self.path = path
        self.byteCount = byteCount
        self.oversize = oversize
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
