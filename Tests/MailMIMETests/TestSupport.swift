import XCTest
@testable import MailMIME

/// Runs `check` on `text` with LF line endings and again with CRLF (MimeKit's habit), so every
/// hand-written case covers both.
func withBothLineEndings(_ text: String, file: StaticString = #filePath, line: UInt = #line,
                         _ check: (_ bytes: [UInt8], _ ending: String) throws -> Void) rethrows {
    let lf = text.replacingOccurrences(of: "\r\n", with: "\n")
    try check(Array(lf.utf8), "LF")
    try check(Array(lf.replacingOccurrences(of: "\n", with: "\r\n").utf8), "CRLF")
}

extension MIMEMessage {
    func part(_ path: String) -> MIMEPart? { parts.first { $0.path == path } }
    func decodedText(_ path: String) -> String? {
        part(path).map { String(decoding: decodedBody(of: $0), as: UTF8.self) }
    }
    func rawText(_ path: String) -> String? {
        part(path).map { String(decoding: rawBody(of: $0), as: UTF8.self) }
    }
    var defectCodes: [MIMEDefect.Code] { defects.map(\.code) }
}

func fixtureURL(_ name: String) -> URL {
    Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(name)
}

func fixtureBytes(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: fixtureURL(name)))
}
