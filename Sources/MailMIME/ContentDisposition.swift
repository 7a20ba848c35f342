/// A parsed Content-Disposition (RFC 2183): kind lowercased ("attachment", "inline", ...),
/// parameters decoded as for Content-Type.
package struct ContentDisposition: Sendable, Equatable {
    package var kind: String
    package var parameters: [String: String]

    package init(kind: String, parameters: [String: String] = [:]) {
        self.kind = kind
        self.parameters = parameters
    }

    package var isAttachment: Bool { kind == "attachment" }

    /// Parses a header value. A value with no disposition token but with parameters (seen in the
    /// wild: `Content-Disposition: ; filename=x`) keeps the parameters with an empty kind.
    package static func parse(_ raw: ArraySlice<UInt8>) -> ContentDisposition {
        var ignored: [String] = []
        return parse(raw, unknownCharsets: &ignored)
    }

    /// As `parse(_:)`, appending charset names iconv does not know to `unknownCharsets`.
    static func parse(_ raw: ArraySlice<UInt8>, unknownCharsets: inout [String]) -> ContentDisposition {
        HeaderField.withUnfolded(raw) { bytes in
            var scanner = ParameterScanner(bytes)
            scanner.skipCFWS()
            let kind = scanner.token().map { ParameterScanner.lowerString($0) } ?? ""
            let params = scanner.parameters(unknownCharsets: &unknownCharsets)
            return ContentDisposition(kind: kind, parameters: params.values)
        }
    }
}
