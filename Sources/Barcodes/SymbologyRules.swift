/// The rules of the iOS 27 linear symbologies, checked on the message bytes before zint is asked,
/// so a message that breaks one gets a sentence (and is shown as text) instead of zint's own
/// fix-up: zint folds Code 39 lower case to capitals, pads an odd ITF with a leading 0, and makes
/// an EAN-8 or an EAN-5 add-on of a short EAN message, each of which scans as other bytes than
/// the pass's. Apple documents the formats, not their rules (Wallet Passes, `Pass.Barcodes`); the
/// rules are the symbologies' own.
///
/// - Code 39 (ISO/IEC 16388): digits, capital letters, space and `- . $ / + %`; `*` is its start
///   and stop character, which zint adds. No check character (Apple names none).
/// - Codabar (BS EN 798): digits and `- $ : / . +` between a start and a stop character A, B, C
///   or D. Apple's own example message is "123456789" (WWDC26 session 209, "Adopting new barcode
///   types"), with neither, so Wallet adds them itself; which ones is not documented. A message
///   with neither gets A…A here, as ZXing's writer does; scanners leave the start and stop
///   characters out of what they read, so it scans as the message. A message with both is drawn
///   as written; one with only one of them, or with A–D inside, is refused.
/// - EAN-13 (ISO/IEC 15420, GS1 General Specifications §7.9): 12 digits get their check digit;
///   13 digits must end in the right one. Any other length is refused: never an EAN-8.
/// - ITF (ISO/IEC 16390): digits, in pairs; an odd count is refused (Wallet's behaviour is not
///   documented, and zint's leading 0 would change what the gate reads).
///
/// QR, PDF417, Aztec and Code 128 take any bytes: they pass unchanged.
enum SymbologyRules {
    /// The bytes zint is to draw for `bytes` in `format`, or `BarcodeError.invalidMessage` /
    /// `tooLong` naming the rule broken.
    static func prepare(_ bytes: [UInt8], for format: BarcodeFormat) throws -> [UInt8] {
        switch format {
        case .qr, .pdf417, .aztec, .code128:
            return bytes
        case .code39:
            if let bad = bytes.firstIndex(where: { !code39.contains($0) }) {
                throw BarcodeError.invalidMessage(format,
                    "has a character Code 39 cannot hold (it holds digits, capital letters, space and - . $ / + %)",
                    detail: describe(bytes[bad], at: bad))
            }
            return bytes
        case .codabar:
            return try codabar(bytes)
        case .ean13:
            return try ean13(bytes)
        case .itf:
            if let bad = bytes.firstIndex(where: { !isDigit($0) }) {
                throw BarcodeError.invalidMessage(format, "has a character that is not a digit (ITF holds only digits)",
                                                  detail: describe(bytes[bad], at: bad))
            }
            if bytes.count % 2 != 0 {
                throw BarcodeError.invalidMessage(format,
                    "has an odd number of digits (\(bytes.count)), and ITF (Interleaved 2 of 5) holds digits in pairs",
                    detail: "\(bytes.count) digits; a leading 0 would make it scan as other digits")
            }
            return bytes
        }
    }

    /// Code 39's 43 characters (ISO/IEC 16388 Table 1): 0-9, A-Z, space, - . $ / + %.
    static let code39: Set<UInt8> = Set(Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ -.$/+%".utf8))
    /// Codabar's data characters (BS EN 798 Table 1) and its start/stop characters.
    static let codabarData: Set<UInt8> = Set(Array("0123456789-$:/.+".utf8))
    static let codabarStartStop: Set<UInt8> = Set(Array("ABCD".utf8))

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func codabar(_ bytes: [UInt8]) throws -> [UInt8] {
        let format = BarcodeFormat.codabar
        // `bytes` is not empty (BarcodeEncoder checked).
        let starts = codabarStartStop.contains(bytes[0])
        let stops = bytes.count > 1 && codabarStartStop.contains(bytes[bytes.count - 1])
        if starts != stops {
            throw BarcodeError.invalidMessage(format,
                "has a start character (A, B, C or D) without a stop character, or a stop without a start",
                detail: "first \(describe(bytes[0])), last \(describe(bytes[bytes.count - 1]))")
        }
        let data = starts ? bytes[1..<(bytes.count - 1)] : bytes[...]
        if data.isEmpty {
            throw BarcodeError.invalidMessage(format, "has nothing between its start and stop characters",
                                              detail: "\(bytes.count) bytes")
        }
        for (offset, byte) in data.enumerated() where !codabarData.contains(byte) {
            let at = offset + (starts ? 1 : 0)
            if codabarStartStop.contains(byte) {
                throw BarcodeError.invalidMessage(format,
                    "has A, B, C or D inside it, where Codabar allows them only as its first and last characters",
                    detail: describe(byte, at: at))
            }
            throw BarcodeError.invalidMessage(format,
                "has a character Codabar cannot hold (it holds digits and - $ : / . + between start and stop characters A to D)",
                detail: describe(byte, at: at))
        }
        let drawn = starts ? bytes : [0x41] + bytes + [0x41]  // "A" … "A"
        if drawn.count > format.maximumBytes {
            throw BarcodeError.tooLong(format, bytes: drawn.count, limit: format.maximumBytes,
                                       counting: starts ? nil : "\(bytes.count) characters and the start and stop characters A…A")
        }
        return drawn
    }

    private static func ean13(_ bytes: [UInt8]) throws -> [UInt8] {
        let format = BarcodeFormat.ean13
        if let bad = bytes.firstIndex(where: { !isDigit($0) }) {
            throw BarcodeError.invalidMessage(format, "has a character that is not a digit (EAN-13 holds only digits)",
                                              detail: describe(bytes[bad], at: bad))
        }
        guard bytes.count == 12 || bytes.count == 13 else {
            throw BarcodeError.invalidMessage(format,
                "has \(bytes.count) digits, and an EAN-13 code holds 12 and a check digit",
                detail: "\(bytes.count) digits; 12 (the check digit is added) or 13 (it is checked) are drawn")
        }
        let check = checkDigit(bytes[0..<12])
        if bytes.count == 12 { return bytes + [0x30 + check] }  // check <= 9
        let given = bytes[12] - 0x30
        if given != check {
            throw BarcodeError.invalidMessage(format,
                "ends in the check digit \(given), but its first 12 digits make \(check)",
                detail: "check digit \(given), expected \(check) (GS1 modulo 10)")
        }
        return bytes
    }

    /// The GS1 modulo-10 check digit of 12 digits: from the right, weights 3, 1, 3, … (GS1
    /// General Specifications §7.9.1).
    static func checkDigit(_ digits: ArraySlice<UInt8>) -> UInt8 {
        var sum = 0
        for (i, byte) in digits.reversed().enumerated() {
            sum += Int(byte - 0x30) * (i % 2 == 0 ? 3 : 1)  // every byte is a digit (checked by the caller)
        }
        return UInt8((10 - sum % 10) % 10)
    }

    /// A byte for a detail: `"a" (0x61)`, or the hex alone when it is not printable ASCII.
    static func describe(_ byte: UInt8, at offset: Int? = nil) -> String {
        let hex = "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        let shown = (0x21...0x7E).contains(byte) ? "\"\(Character(Unicode.Scalar(byte)))\" (\(hex))" : hex
        return offset.map { "\(shown) at byte \($0)" } ?? shown
    }
}
