#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An I/O failure while reading a mailbox; it names the path (or "<stdin>"/"fd N") and the OS reason.
package struct MailboxError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: Hashable, Sendable {
        // A closed set: only the codes below exist (callers match them, never text).
        package let rawValue: String
        private init(rawValue: String) { self.rawValue = rawValue }
        package static let cannotOpen = Code(rawValue: "cannot-open")
        package static let readFailed = Code(rawValue: "read-failed")
        package static let notAMaildir = Code(rawValue: "not-a-maildir")
    }

    package var code: Code
    package var path: String
    package var detail: String

    package init(_ code: Code, path: String, detail: String) {
        self.code = code
        self.path = path
        self.detail = detail
    }

    static func errno(_ code: Code, path: String, _ number: Int32) -> MailboxError {
        MailboxError(code, path: path, detail: String(cString: strerror(number)))
    }

    package var description: String { "\(path): \(code.rawValue): \(detail)" }
}
