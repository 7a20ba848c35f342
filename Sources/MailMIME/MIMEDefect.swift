/// Something wrong with a message that the parser worked around. Parsing never throws; it records
/// one of these (gmime's `(offset, errcode, item)` warnings) and carries on.
package struct MIMEDefect: Sendable, Equatable, CustomStringConvertible {
    /// A stable machine-readable code. Callers match codes, never `detail`.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        // A closed set: only the codes below exist (callers match them, never text).
        package let rawValue: String
        private init(rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// The first line of a header block is not a header field; the block is treated as body.
        package static let missingHeaders = Code(rawValue: "missing-headers")
        /// A non-header line ended the header block without the blank separator line.
        package static let missingHeaderBodySeparator = Code(rawValue: "missing-header-body-separator")
        /// The header block exceeded `MIMELimits.maxHeaderBytes`; later fields were ignored.
        package static let headerTooLong = Code(rawValue: "header-too-long")
        /// A header value carries raw 8-bit bytes (decoded as UTF-8, else Windows-1252).
        package static let unencoded8BitHeader = Code(rawValue: "unencoded-8bit-header")
        /// More than one Content-Type (or disposition / transfer encoding); the first one is used.
        package static let duplicateContentHeader = Code(rawValue: "duplicate-content-header")
        /// The Content-Type could not be parsed; `text/plain` (or the context default) is used.
        package static let invalidContentType = Code(rawValue: "invalid-content-type")
        /// A multipart without a usable boundary parameter is treated as a single leaf part.
        package static let multipartWithoutBoundary = Code(rawValue: "multipart-without-boundary")
        /// No line of a multipart body matched its boundary: the body is all preamble.
        package static let boundaryNotFound = Code(rawValue: "boundary-not-found")
        /// A multipart ended (at its parent's boundary or at the end) without its close delimiter.
        package static let missingCloseBoundary = Code(rawValue: "missing-close-boundary")
        /// `MIMELimits.maxDepth` was reached: the entity is kept as an opaque leaf.
        package static let nestingTooDeep = Code(rawValue: "nesting-too-deep")
        /// `MIMELimits.maxParts` was reached: later entities are not listed.
        package static let tooManyParts = Code(rawValue: "too-many-parts")
        /// The message is larger than `MIMELimits.maxMessageBytes`: only the first bytes were parsed.
        package static let messageTooLarge = Code(rawValue: "message-too-large")
        /// An unknown Content-Transfer-Encoding; the body is handed out undecoded.
        package static let unknownTransferEncoding = Code(rawValue: "unknown-transfer-encoding")
        /// A message/rfc822 or message/global uses a transfer encoding RFC 2046 forbids; decoded and parsed anyway.
        package static let encodedMessage = Code(rawValue: "encoded-message")
        /// A parameter or encoded word could not be decoded and was left as it stands.
        package static let invalidEncoding = Code(rawValue: "invalid-encoding")
        /// An encoded word or RFC 2231 parameter names a charset iconv does not know; its bytes were
        /// read as UTF-8 when valid, else as Windows-1252. The detail is the charset name.
        package static let unknownCharset = Code(rawValue: "unknown-charset")
    }

    package var code: Code
    /// Byte offset in the buffer the affected part lives in.
    package var offset: Int
    package var detail: String

    package init(_ code: Code, offset: Int, detail: String = "") {
        self.code = code
        self.offset = offset
        self.detail = detail
    }

    package var description: String { detail.isEmpty ? "\(code)@\(offset)" : "\(code)@\(offset): \(detail)" }
}
