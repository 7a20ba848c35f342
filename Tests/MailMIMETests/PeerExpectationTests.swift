import XCTest
@testable import MailMIME

/// Our part trees against the parses that mime4j and stalwart mail-parser store beside their test
/// messages (copied into Fixtures/mime4j and Fixtures/stalwart; see Fixtures/README.md).
final class PeerExpectationTests: XCTestCase {
    /// Cases where we deliberately differ from the peer, each with the reason.
    static let mime4jDifferences: [String: String] = {
        let headerLines = "a line that is not a header field ends the header section and starts the body (RFC 5322, as Python does); mime4j skips such lines and keeps reading fields"
        let qpLineEnds = "mime4j writes CRLF for every quoted-printable hard line break; we keep the message's own line ends, as Python does"
        let base64Tail = "a final base64 group of 3 characters is decoded as if padded (as Python does); mime4j drops it"
        return [
            "obsolete": "a field name with a raw 8-bit byte is not a header field: " + headerLines,
            "malformedHeader-nocrlfcrlf": headerLines,
            "malformedHeader-noheader": headerLines,
            "malformedHeaderStartsBody-nocrlfcrlf": headerLines,
            "malformedHeaderStartsBody-noheader": headerLines,
            "hdr-fakeout": "the whitespace-only line is a continuation (obsolete folding), so the next text line " + headerLines,
            "basic-plain-with-bad-header-separator": "the whitespace-only line is a continuation (obsolete folding), so the next text line " + headerLines,
            "empty-preamble": qpLineEnds,
            "german-qp": qpLineEnds,
            "jt-0498": qpLineEnds,
            "mp-msg-rfc822": qpLineEnds,
            "frag": base64Tail,
            "multi-frag": base64Tail,
            "ending-boundaries": "text after a boundary on its line: we require only whitespace there (RFC 2046 BNF, GMime, Python), which keeps prefix-sharing boundaries safe; mime4j follows the RFC's implementor note and accepts the line",
        ]
    }()
    static let stalwartDifferences: [String: String] = {
        let prefixMatch = "stalwart matches a boundary as a prefix of the line (so --ab is a delimiter for boundary a); we require the exact boundary plus whitespace"
        let parentEnds = "a parent's boundary ends the open child and the lines after it are the parent's next part (RFC 2046, Python, GMime); stalwart keeps reading the child"
        let latin1Name = "raw 8-bit Latin-1 file name: we read it as Windows-1252 (HasenundFrösche.txt); stalwart substitutes U+FFFD"
        return [
            "legacy/016.eml": latin1Name,
            "legacy/023.eml": latin1Name,
            "legacy/026.eml": latin1Name,
            "malformed/000.eml": "parts whose header runs straight into the next boundary are kept as empty parts (as Python does); stalwart drops all of them",
            "malformed/001.eml": prefixMatch,
            "malformed/004.eml": prefixMatch,
            "malformed/007.eml": "the inner multipart's header ends at its first delimiter line (no blank line); we still parse it as a multipart, stalwart makes it a leaf",
            "malformed/009.eml": parentEnds,
            "malformed/011.eml": parentEnds,
            "malformed/012.eml": parentEnds,
            "malformed/013.eml": "nested multiparts reuse one boundary; innermost-first matching gives the last nesting one more leaf than stalwart's reading",
            "malformed/014.eml": "a final delimiter with nothing after it opens an empty part (as Python does); stalwart ignores it",
            "malformed/016.eml": parentEnds,
            "malformed/017.eml": "Content-Disposition ';' with a filename parameter: we keep the filename (image001.png); stalwart loses it",
            "malformed/019.eml": "boundary case differs (--Boundary42 vs boundary42): we match boundaries case-sensitively as RFC 2046 says, so these lines are text; stalwart's prefix reading nests differently",
            "malformed/020.eml": "duplicate Content-Type: the first (multipart/alternative) wins, as in MimeKit, mime4j and Python; stalwart turns the part into a leaf",
            "malformed/021.eml": "duplicate Content-Type: the first (multipart/alternative) wins, as in MimeKit, mime4j and Python; stalwart turns the part into a leaf",
            "malformed/022.eml": "a message/rfc822 body that is not a message: we parse it as a header-less message (its text is the body, as Python does); stalwart keeps an opaque leaf",
            "thirdparty/015.eml": "an encapsulated multipart/alternative whose header runs into the outer delimiter: we keep the encapsulated messages separate; stalwart nests one inside another",
        ]
    }()

    private func files(in folder: String, suffix: String) throws -> [URL] {
        let dir = fixtureURL(folder)
        let names = try FileManager.default.subpathsOfDirectory(atPath: dir.path)
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { dir.appendingPathComponent($0) }
    }

    /// mime4j `X_decoded.xml` lists every leaf body in document order as a file of decoded bytes;
    /// our leaves must be the same bodies, byte for byte (base64-encoded rfc822 messages included).
    func testLeafBodiesMatchMime4jDecodedParts() throws {
        let messages = try files(in: "mime4j", suffix: ".msg")
        XCTAssertGreaterThan(messages.count, 70)
        var mismatches: [String: String] = [:]
        let namePattern = try NSRegularExpression(pattern: "<(text|binary)-body name=\"([^\"]+)\"/>")
        for url in messages {
            let base = url.deletingPathExtension().lastPathComponent
            let xml = try String(contentsOf: url.deletingLastPathComponent().appendingPathComponent(base + "_decoded.xml"), encoding: .utf8)
            let expected = namePattern.matches(in: xml, range: NSRange(xml.startIndex..., in: xml)).map {
                String(xml[Range($0.range(at: 2), in: xml)!])
            }
            let m = MIMEParser.parse(Array(try Data(contentsOf: url)))
            // A multipart whose boundary never appears is an opaque leaf for us and a childless multipart
            // (all preamble) for mime4j: the same reading, so it is not counted as a leaf here.
            let leaves = m.leaves.filter { !($0.contentType.isMultipart && $0.defects.contains { $0.code == .boundaryNotFound }) }
            if leaves.count != expected.count {
                mismatches[base] = "mime4j \(expected.count) leaves, we \(leaves.count): \(leaves.map(\.contentType.mimeType))"
                continue
            }
            for (leaf, name) in zip(leaves, expected) {
                let want = Array(try Data(contentsOf: url.deletingLastPathComponent().appendingPathComponent(name)))
                let got = m.decodedBody(of: leaf)
                if got != want {
                    mismatches[base] = "leaf \(leaf.path) (\(leaf.contentType.mimeType), \(leaf.transferEncoding)): \(got.count) bytes, mime4j \(want.count)"
                    break
                }
            }
        }
        XCTAssertEqual(Set(mismatches.keys), Set(Self.mime4jDifferences.keys),
                       mismatches.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))
    }

    private struct Node: Equatable, CustomStringConvertible {
        var kind: String      // multipart | message | leaf
        var type: String
        var filename: String?
        var description: String { "\(kind):\(type)\(filename.map { "[\($0)]" } ?? "")" }
    }

    private func stalwartNodes(_ message: [String: Any], defaultType: String = "text/plain") -> [Node] {
        guard let parts = message["parts"] as? [[String: Any]], !parts.isEmpty else { return [] }
        var out: [Node] = []
        func attributes(_ header: [String: Any]?) -> (String?, [String: String]) {
            guard let value = header?["value"] as? [String: Any], let ct = value["ContentType"] as? [String: Any] else { return (nil, [:]) }
            var attrs: [String: String] = [:]
            for a in (ct["attributes"] as? [[String: Any]]) ?? [] {
                if let n = a["name"] as? String, let v = a["value"] as? String { attrs[n.lowercased()] = v }
            }
            let type = (ct["c_type"] as? String)?.lowercased()
            let sub = (ct["c_subtype"] as? String)?.lowercased()
            return (type.map { $0 + "/" + (sub ?? "") }, attrs)
        }
        func visit(_ i: Int, defaultType: String) {
            guard i < parts.count else { return }
            let part = parts[i]
            let headers = (part["headers"] as? [[String: Any]]) ?? []
            let (type, typeAttrs) = attributes(headers.first { ($0["name"] as? String) == "content_type" })
            let (_, dispAttrs) = attributes(headers.first { ($0["name"] as? String) == "content_disposition" })
            let filename = (dispAttrs["filename"] ?? typeAttrs["name"])?.trimmingCharacters(in: .whitespaces)
            let body = part["body"] as? [String: Any]
            let resolved = type ?? defaultType
            if let children = body?["Multipart"] as? [Int] {
                out.append(Node(kind: "multipart", type: resolved, filename: filename))
                for c in children { visit(c, defaultType: resolved == "multipart/digest" ? "message/rfc822" : "text/plain") }
            } else if let inner = body?["Message"] as? [String: Any] {
                out.append(Node(kind: "message", type: resolved, filename: filename))
                out.append(contentsOf: stalwartNodes(inner))
            } else {
                out.append(Node(kind: "leaf", type: resolved, filename: filename?.isEmpty == true ? nil : filename))
            }
        }
        visit(0, defaultType: defaultType)
        return out
    }

    /// stalwart's `NNN.json` is the parse of `NNN.eml` with every CR deleted: compare the part tree,
    /// content types and file names.
    func testPartTreesMatchStalwartMailParser() throws {
        let emls = try files(in: "stalwart", suffix: ".eml")
        XCTAssertGreaterThan(emls.count, 100)
        var mismatches: [String: String] = [:]
        for url in emls {
            let key = url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url.deletingPathExtension().appendingPathExtension("json"))) as! [String: Any]
            let expected = stalwartNodes(json)
            let bytes = Array(try Data(contentsOf: url)).filter { $0 != 0x0D }
            let m = MIMEParser.parse(bytes)
            let ours = m.parts.map {
                Node(kind: $0.isMultipart ? "multipart" : $0.isEncapsulatedMessage ? "message" : "leaf",
                     type: $0.contentType.mimeType, filename: $0.filename)
            }
            if ours != expected {
                mismatches[key] = "stalwart \(expected)\n      we \(ours)"
            }
        }
        XCTAssertEqual(Set(mismatches.keys), Set(Self.stalwartDifferences.keys),
                       mismatches.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))
    }
}
