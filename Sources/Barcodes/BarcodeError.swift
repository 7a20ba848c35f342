import Support

/// Why a barcode cannot be drawn: a stable `code` for programs, a `message` a person reads (the
/// caller then shows the barcode's text instead), and a technical `detail`.
package struct BarcodeError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: Hashable, Sendable {
        // A closed set: only the codes below exist (callers match them, never text).
        /// The shared code this one is (same raw string).
        package let problemCode: Problem.Code
        package var rawValue: String { problemCode.rawValue }
        private init(_ code: Problem.Code) { problemCode = code }
        /// The pass names a symbology Wallet does not draw (or garbage).
        package static let unsupportedFormat = Code(.unsupportedBarcodeFormat)
        /// `messageEncoding` is not a character set passconduit knows.
        package static let unknownEncoding = Code(.unknownBarcodeEncoding)
        /// A character of the message has no byte form in `messageEncoding` ("€" in ISO-8859-1).
        package static let unrepresentable = Code(.barcodeMessageUnrepresentable)
        /// The message does not fit the largest symbol of its symbology.
        package static let tooLong = Code(.barcodeMessageTooLong)
        /// The message breaks a rule of its symbology (a character Code 39 has not, an EAN-13
        /// check digit that is wrong, an odd number of ITF digits, …): `SymbologyRules`.
        package static let invalidMessage = Code(.barcodeMessageInvalid)
        /// zint refused the data for another reason (its text is in `detail`).
        package static let encoderFailed = Code(.barcodeEncoderFailed)
    }

    package var code: Code
    package var message: String
    package var detail: String

    package var description: String { "\(message) (\(code.rawValue): \(detail))" }

    package static func == (a: BarcodeError, b: BarcodeError) -> Bool { a.code == b.code }

    static func unsupportedFormat(_ format: String) -> BarcodeError {
        BarcodeError(code: .unsupportedFormat,
                     message: "The barcode's format is not one Wallet draws (\(BarcodeFormat.namesForSentence)), so it is shown as text.",
                     detail: "format \(Self.quoted(format))")
    }

    static func unknownEncoding(_ name: String) -> BarcodeError {
        BarcodeError(code: .unknownEncoding,
                     message: "The barcode's character set is unknown, so it cannot be drawn and is shown as text.",
                     detail: "messageEncoding \(Self.quoted(name))")
    }

    static func unrepresentable(_ scalar: Unicode.Scalar, offset: Int, encoding: String) -> BarcodeError {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return BarcodeError(code: .unrepresentable,
                            message: "The barcode's message has a character its character set (\(encoding)) cannot hold, so it is shown as text.",
                            detail: "U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex) at character \(offset) has no form in \(encoding)")
    }

    static func tooLong(_ format: BarcodeFormat, bytes: Int, limit: Int?, zint: String? = nil, counting: String? = nil) -> BarcodeError {
        var detail = "\(bytes) bytes"
        if let counting { detail += " (\(counting))" }
        if let limit { detail += "; a \(format.name) symbol holds at most \(limit)" }
        if let zint { detail += "; zint: \(zint)" }
        return BarcodeError(code: .tooLong,
                            message: "The barcode's message is too long for \(format.article) \(format.name) code, so it is shown as text.",
                            detail: detail)
    }

    /// A message that breaks a rule of its symbology: "The EAN-13 barcode's message `why`, so it
    /// is shown as text."
    static func invalidMessage(_ format: BarcodeFormat, _ why: String, detail: String) -> BarcodeError {
        BarcodeError(code: .invalidMessage, message: "The \(format.name) barcode's message \(why), so it is shown as text.",
                     detail: detail)
    }

    static func encoderFailed(_ format: BarcodeFormat, status: Int32, text: String) -> BarcodeError {
        BarcodeError(code: .encoderFailed,
                     message: "The \(format.name) barcode could not be drawn, so it is shown as text.",
                     detail: "zint \(status): \(text)")
    }

    /// A name from the pass, cut and with control characters escaped: details reach logs and terminals.
    static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(64) {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if text.unicodeScalars.count > 64 { out += "…" }
        return "\"" + out + "\""
    }
}

extension BarcodeError: ProblemReporting {
    package var problem: Problem { Problem(code.problemCode, message: message, detail: detail) }
}
