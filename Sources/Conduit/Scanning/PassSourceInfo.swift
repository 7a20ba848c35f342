/// Where a pass was found, for people (the card's "From" line) and programs (JSON `source`).
package struct PassSourceInfo: Sendable, Equatable {
    /// The input as the user named it: a path, or "-" for stdin.
    package var input: String
    /// 1-based number of the message in a mailbox (1 for a single message); nil for a bare
    /// .pkpass/.pkpasses input.
    package var message: Int?
    /// The file of a Maildir message.
    package var messagePath: String?
    package var messageID: String?
    package var subject: String?
    /// IMAP section number of the MIME part (RFC 3501 §6.4.5), e.g. "2" or "2.2"; nil for a bare pass.
    package var part: String?
    /// The decoded file name of the part.
    package var filename: String?
    /// The part's "type/subtype" as labelled by the sender.
    package var contentType: String?
    package var detectedBy: [DetectionReason]
    /// The member name inside a .pkpasses bundle.
    package var member: String?

    package init(input: String, message: Int? = nil, messagePath: String? = nil, messageID: String? = nil,
                 subject: String? = nil, part: String? = nil, filename: String? = nil,
                 contentType: String? = nil, detectedBy: [DetectionReason] = [], member: String? = nil) {
        self.input = input
        self.message = message
        self.messagePath = messagePath
        self.messageID = messageID
        self.subject = subject
        self.part = part
        self.filename = filename
        self.contentType = contentType
        self.detectedBy = detectedBy
        self.member = member
    }
}
