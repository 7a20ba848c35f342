/// A parsed Content-Type (RFC 2045 §5): type and subtype lowercased, parameters decoded
/// (RFC 2231 continuations and charsets, RFC 2047 words, raw 8-bit text).
package struct ContentType: Sendable, Equatable {
    package var type: String
    package var subtype: String
    /// Parameter names lowercased; for a name given both plain and RFC 2231 style, the RFC 2231 value.
    package var parameters: [String: String]
    /// The boundary parameter as raw bytes (quoted-string unescaped, nothing else decoded), if any.
    package var boundary: [UInt8]?

    package init(type: String, subtype: String, parameters: [String: String] = [:], boundary: [UInt8]? = nil) {
        self.type = type
        self.subtype = subtype
        self.parameters = parameters
        self.boundary = boundary
    }

    package static let textPlain = ContentType(type: "text", subtype: "plain")
    package static let messageRFC822 = ContentType(type: "message", subtype: "rfc822")

    /// "type/subtype".
    package var mimeType: String {
        // One string made at its final size: `type + "/" + subtype` grew it twice (500
        // instructions for every part of a scan, issue 17).
        var type = type, subtype = subtype
        return type.withUTF8 { t in
            subtype.withUTF8 { s in
                String(unsafeUninitializedCapacity: t.count + 1 + s.count) { out in
                    _ = out.initialize(from: t)
                    out[t.count] = UInt8(ascii: "/")
                    _ = UnsafeMutableBufferPointer(rebasing: out[(t.count + 1)...]).initialize(from: s)
                    return t.count + 1 + s.count
                }
            }
        }
    }
    package var isMultipart: Bool { type == "multipart" }
    /// message/rfc822 and message/global (RFC 6532) carry a whole message to be parsed recursively.
    package var isEncapsulatedMessage: Bool {
        type == "message" && (subtype == "rfc822" || subtype == "global")
    }
    package var charset: String? { parameters["charset"] }

    /// The parameters of a value whose type/subtype is broken ("application; name=x.gz").
    package static func parseParametersOnly(_ raw: ArraySlice<UInt8>) -> [String: String] {
        var ignored: [String] = []
        return parseParametersOnly(raw, unknownCharsets: &ignored)
    }

    /// As `parseParametersOnly(_:)`, appending charset names iconv does not know to `unknownCharsets`.
    static func parseParametersOnly(_ raw: ArraySlice<UInt8>, unknownCharsets: inout [String]) -> [String: String] {
        HeaderField.withUnfolded(raw) { bytes in
            var scanner = ParameterScanner(bytes)
            scanner.skipToFirstParameter()
            return scanner.parameters(unknownCharsets: &unknownCharsets).values
        }
    }

    /// Parses a header value; nil when it has no usable type/subtype.
    package static func parse(_ raw: ArraySlice<UInt8>) -> ContentType? {
        var ignored: [String] = []
        return parse(raw, unknownCharsets: &ignored)
    }

    /// As `parse(_:)`, appending charset names iconv does not know to `unknownCharsets`.
    static func parse(_ raw: ArraySlice<UInt8>, unknownCharsets: inout [String]) -> ContentType? {
        HeaderField.withUnfolded(raw) { bytes in
            var scanner = ParameterScanner(bytes)
            scanner.skipCFWS()
            guard let type = scanner.token(), !type.isEmpty else { return nil }
            scanner.skipCFWS()
            guard scanner.consume(UInt8(ascii: "/")) else { return nil }
            scanner.skipCFWS()
            guard let subtype = scanner.token(), !subtype.isEmpty else { return nil }
            let params = scanner.parameters(unknownCharsets: &unknownCharsets)
            return ContentType(type: ParameterScanner.lowerString(type), subtype: ParameterScanner.lowerString(subtype),
                               parameters: params.values, boundary: params.rawBoundary)
        }
    }
}
