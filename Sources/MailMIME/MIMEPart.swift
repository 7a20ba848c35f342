/// One entity of a message: the root, a multipart container, a leaf, an encapsulated message
/// (message/rfc822 or message/global) or the root of such an encapsulated message.
/// A part is a set of byte ranges into one of the message's buffers; nothing is decoded.
package struct MIMEPart: Sendable {
    /// IMAP section number (RFC 3501 §6.4.5): "1", "2", "2.1". A multipart root of the message is "";
    /// the multipart root of an encapsulated message at "3" is "3.TEXT" (its children are "3.1", ...).
    package var path: String
    /// 0 for the root; children and encapsulated roots are one deeper than their container.
    package var depth: Int
    package var contentType: ContentType
    package var disposition: ContentDisposition?
    /// Content-Disposition filename (RFC 2231 / RFC 2047 decoded), else the Content-Type name; trimmed.
    package var filename: String?
    package var transferEncoding: TransferEncoding
    /// True when the part has children (a multipart with a usable boundary that was parsed as one).
    package var isMultipart: Bool
    /// message/rfc822 or message/global; its encapsulated message follows it in `MIMEMessage.parts`.
    package var isEncapsulatedMessage: Bool
    /// Header section bytes, from the first field to the end of the last (blank line excluded).
    package var headerRange: Range<Int>
    /// Body bytes, still transfer-encoded; for containers this includes every child, preamble and epilogue.
    package var bodyRange: Range<Int>
    /// Which of the message's buffers the ranges refer to: 0 is the input, others hold decoded
    /// base64/QP-encoded encapsulated messages.
    package var buffer: Int
    /// Index in `MIMEMessage.parts` of the containing part, nil for the root.
    package var parent: Int?
    package var defects: [MIMEDefect]

    /// The disposition says attachment, or the part has a file name.
    package var isAttachment: Bool { disposition?.isAttachment == true || filename != nil }
}
