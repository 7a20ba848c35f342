import MailMIME
import Support

// In Conduit, not MailMIME: the parser depends on nothing (Package.swift), as for MailboxError.
// A defect is not an error (parsing never throws; it works around the defect and records it), so
// it says what happened in the common shape without being `ProblemReporting`.
extension MIMEDefect {
    /// The defect as a problem: the shared code of the same string, a sentence saying what the
    /// parser did about it, and where (the byte offset, and the parser's detail when it has one).
    package var problem: Problem {
        Problem(code.problemCode, message: Self.message(for: code),
                detail: detail.isEmpty ? "at byte \(offset)" : "at byte \(offset): \(detail)")
    }

    /// The sentence of each code, written once.
    package static func message(for code: Code) -> String {
        switch code {
        case .missingHeaders: "The message does not start with header fields, so it was read as body text."
        case .missingHeaderBodySeparator: "The header fields do not end with a blank line, so the rest was read as body text."
        case .headerTooLong: "The header section is too long; the fields after the limit were ignored."
        case .unencoded8BitHeader: "A header field holds unencoded 8-bit text; it was read as UTF-8, else as Windows-1252."
        case .duplicateContentHeader: "A part gives its type or encoding more than once; the first one was used."
        case .invalidContentType: "A part's content type cannot be read, so it was treated as plain text."
        case .multipartWithoutBoundary: "A multipart part names no boundary, so it was read as a single part."
        case .boundaryNotFound: "A multipart part's boundary never appears, so none of its parts were found."
        case .missingCloseBoundary: "A multipart part ends without its closing boundary."
        case .nestingTooDeep: "The message is nested too deeply; the parts below the limit were kept unread."
        case .tooManyParts: "The message has too many parts; the rest were not listed."
        case .messageTooLarge: "The message is too large; only its beginning was read."
        case .unknownTransferEncoding: "A part uses an unknown transfer encoding, so it was left undecoded."
        case .encodedMessage: "An attached message uses a transfer encoding the standard forbids; it was decoded anyway."
        case .invalidEncoding: "An encoded word or parameter cannot be decoded, so it was left as it stands."
        case .unknownCharset: "Text names an unknown character set; it was read as UTF-8, else as Windows-1252."
        default: "The message breaks the mail format in a way that was worked around."
        }
    }
}

extension MIMEDefect.Code {
    /// The shared code this one is: MIMEDefect's codes are a subset of Problem's, with the same
    /// raw strings (ProblemTests checks that every one is found).
    package var problemCode: Problem.Code {
        Problem.Code(rawValue: rawValue) ?? .invalidEncoding
    }
}
