import Foundation
import MailMIME
import PassStore
import Support
import WalletPass

/// The scanning pipeline for one message or one pass: MIME parts -> detection -> open and verify
/// -> what the library knows. Used by `scan`, `add` and the delivery filter.
///
/// Bodies are decoded only for candidates: a part is a candidate by its label (type or name), or
/// when its raw body starts like a zip in its transfer encoding, libmagic, on the first decoded
/// bytes, does not call it something else, and the zip central directory names a pass. (A
/// labelled part that starts like a zip goes to the central directory without asking libmagic.)
package struct PassScanner: Sendable {
    package let opener: PassOpener
    package let library: (any PassLibraryBackend)?
    package let limits: Limits
    package let sniffer: MagicSniffer?
    /// When passes were received, for the library's `PassSource` (injectable for tests).
    package var now: @Sendable () -> Date = { Date() }
    /// Counts the body decoding done (tests: each candidate part decoded once).
    package var decodeCounter: DecodeCounter?
    /// Asked before each part is searched: true ends the search of the message there (the web
    /// wallet's time limit on one upload). Nil: every part is searched, as `scan` and the filter do.
    package var shouldStop: (@Sendable () -> Bool)?

    package init(opener: PassOpener, library: (any PassLibraryBackend)?, limits: Limits = .default, sniffer: MagicSniffer?) {
        self.opener = opener
        self.library = library
        self.limits = limits
        self.sniffer = sniffer
    }

    /// Every pass in one message (any MIME shape, nested message/rfc822 included).
    /// `source` gives the input and message number; the rest is filled in here.
    package func scanMessage(_ bytes: [UInt8], source: PassSourceInfo) -> [FoundPass] {
        scanMessage(bytes, source: source, unsearched: { _ in })
    }

    /// As `scanMessage(_:source:)`, and says through `unsearched` when a limit kept part of the
    /// message from being searched (a pass could hide there), in words that finish "message N …".
    package func scanMessage(_ bytes: [UInt8], source: PassSourceInfo, unsearched: (String) -> Void) -> [FoundPass] {
        scanMessage(MIMEParser.parse(bytes, limits: limits.mime), source: source, unsearched: unsearched)
    }

    /// As `scanMessage(_:source:unsearched:)` on a message already parsed (with `limits.mime`):
    /// the delivery filter parses once for its cheap pre-check and hands the result on.
    package func scanMessage(_ message: MIMEMessage, source: PassSourceInfo, unsearched: (String) -> Void = { _ in }) -> [FoundPass] {
        if message.defects.contains(where: { $0.code == .nestingTooDeep }) {
            unsearched("is nested more than \(limits.mime.maxDepth) levels deep; the parts below that were not searched for passes")
        }
        if message.defects.contains(where: { $0.code == .headerTooLong }) {
            unsearched("has a header section over \(InputScanner.size(limits.mime.maxHeaderBytes)); the fields after that were ignored, so a pass there may have been missed")
        }
        if message.defects.contains(where: { $0.code == .tooManyParts }) {
            unsearched("has more than \(limits.mime.maxParts) parts; the rest were not searched for passes")
        }
        // Message-ID and Subject (RFC 2047 decoding) only once a part is worth reporting: most
        // messages have none, and decoding them showed in the profile of a mailbox scan.
        var base = source
        var described = false
        func describe() {
            guard !described else { return }
            described = true
            base.messageID = message.messageID
            base.subject = message.subject
        }
        var found: [FoundPass] = []
        for part in message.parts where !part.isMultipart && !part.isEncapsulatedMessage {
            if let shouldStop, shouldStop() { break }
            // The type and the names are made once per part, for the TNEF and the candidate checks.
            let mimeType = part.contentType.mimeType
            let names = Self.names(of: part)
            if Self.isTNEF(part, in: message, mimeType: mimeType, names: names) {
                describe()
                var where_ = base
                where_.part = part.path.isEmpty ? "1" : part.path
                where_.filename = part.filename ?? names.first
                where_.contentType = mimeType
                var decoder = message.bodyDecoder(of: part)
                let body = decoder.finish()
                decodeCounter?.count(decoder)
                found += scanWrapped(body, source: where_, depth: 1) { problem in
                    unsearched("part \(where_.part ?? "1") (\(where_.filename ?? "winmail.dat")) \(problem)")
                }
                continue
            }
            guard let candidate = candidate(part, in: message, mimeType: mimeType, names: names) else { continue }
            describe()
            var where_ = base
            where_.part = part.path.isEmpty ? "1" : part.path
            where_.filename = part.filename ?? candidate.names.first
            where_.contentType = mimeType
            where_.detectedBy = candidate.reasons
            found += scanPassBytes(candidate.body, kind: candidate.kind, source: where_)
        }
        return found
    }

    /// Opens bytes already known to be a pass or a bundle (a bare input file, a decoded part).
    package func scanPassBytes(_ bytes: [UInt8], kind: CandidateKind, source: PassSourceInfo) -> [FoundPass] {
        switch kind {
        case .pass:
            let hashed = HashedBytes(bytes)   // once: the verdict's identity and the library's proof
            return [finish(opener.open(hashed), bytes: bytes, hashed: hashed, source: source)]
        case .bundle:
            // Each member comes with its own inflated bytes (what the library stores and exports).
            // A bundle that could not be read gives one nameless member, without bytes, carrying
            // the error: there is no pass of its own to store.
            return opener.openBundle(bytes).map { member in
                var where_ = source
                // Inside a wrapper (winmail.dat), the member path goes on from the wrapper's.
                let name = member.name
                where_.member = [source.member, name].compactMap { $0 }.joined(separator: "/").nonEmpty
                let storable = member.name != nil
                return finish(member.verdict, bytes: storable ? member.bytes : bytes, source: where_, storable: storable)
            }
        }
    }

    /// A TNEF part (`winmail.dat` from Outlook): by its type, its name, or its first bytes.
    package static func isTNEF(_ part: MIMEPart, in message: MIMEMessage) -> Bool {
        isTNEF(part, in: message, mimeType: part.contentType.mimeType, names: names(of: part))
    }

    /// As `isTNEF(_:in:)` with the part's `mimeType` and `names(of:)` already made.
    static func isTNEF(_ part: MIMEPart, in message: MIMEMessage, mimeType: String, names: [String]) -> Bool {
        if Self.mayBeApplication(part) {
            let essence = Detection.essence(of: mimeType)
            // Two comparisons, not a Set lookup that hashes the type of every part.
            if essence == "application/ms-tnef" || essence == "application/vnd.ms-tnef" { return true }
        }
        if names.contains(where: Self.endsWithWinmailDat) { return true }
        let raw = message.rawBody(of: part)
        switch part.transferEncoding {
        case .base64: return raw.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }).starts(with: Self.tnefBase64)
        case .sevenBit, .eightBit, .binary: return TNEFReader.starts(raw)
        default: return TNEFReader.starts(message.decodedPrefix(of: part, maxBytes: 4)[...])
        }
    }

    /// "…winmail.dat" in any case, on the UTF-8 bytes (no lowercased copy per named part).
    static func endsWithWinmailDat(_ name: String) -> Bool {
        let suffix = Self.winmailDat
        let bytes = name.utf8
        guard bytes.count >= suffix.count else { return false }
        // ASCII letters fold with | 0x20; the dot must match exactly.
        return zip(bytes.suffix(suffix.count), suffix).allSatisfy { $1 == 0x2E ? $0 == 0x2E : ($0 | 0x20) == $1 }
    }
    static let winmailDat = Array("winmail.dat".utf8)
    /// base64 of the TNEF signature 78 9F 3E 22 (its first 30 bits: "eJ8+I").
    static let tnefBase64 = Array("eJ8+I".utf8)

    /// The passes inside a wrapper's bytes: a TNEF stream's attachments (each looked into again,
    /// up to `limits.maxWrapperDepth`), or bytes that are themselves a pass or a zip of passes.
    /// `source.member` names the path inside the wrappers; `problem` gets what could not be read.
    func scanWrapped(_ bytes: [UInt8], source: PassSourceInfo, depth: Int, problem: (String) -> Void) -> [FoundPass] {
        guard TNEFReader.starts(bytes[...]) else {
            let named = source.member.flatMap { Detection.kindForName($0) }
            let byContent = contentKind(bytes)
            guard let kind = byContent ?? named else { return [] }
            var where_ = source
            where_.detectedBy = (named != nil ? [.fileExtension] : []) + (byContent != nil ? [.magic] : [])
            return scanPassBytes(bytes, kind: kind, source: where_)
        }
        guard depth <= limits.maxWrapperDepth else {
            problem("is wrapped more than \(limits.maxWrapperDepth) times (TNEF in TNEF); the inner ones were not searched for passes")
            return []
        }
        let contents = TNEFReader.read(bytes, limits: limits.tnef)
        if let why = contents.problem { problem("could be read only in part: it \(why)") }
        var found: [FoundPass] = []
        for (n, attachment) in contents.attachments.enumerated() {
            guard let data = attachment.data else { continue }
            var where_ = source
            let name = attachment.name ?? "attachment \(n + 1)"
            where_.member = [source.member, name].compactMap { $0 }.joined(separator: "/")
            found += scanWrapped(data, source: where_, depth: depth + 1, problem: problem)
        }
        return found
    }

    /// The content decision for bytes in hand: pass, bundle, or neither (nil): a zip signature,
    /// a central directory naming a pass or passes, and libmagic not calling the first bytes
    /// something else. With the bytes in hand the central directory is read first (it costs far
    /// less than libmagic's 1.4 M instructions); the decision is the same in either order.
    package func contentKind(_ bytes: [UInt8]) -> CandidateKind? {
        guard ZipSignature.starts(bytes[...]) else { return nil }
        guard let names = ZipProbe.entryNames(bytes, maxEntries: limits.pass.maxEntries),
              let kind = Detection.kind(fromEntryNames: names) else { return nil }
        // A slice of the bytes, not a copy; libmagic reads it in place.
        guard magicAllowsZip(bytes.prefix(limits.sniffBytes)) else { return nil }
        return kind
    }

    /// libmagic's first cut on the first decoded bytes: true unless it calls them something
    /// other than a zip (or there is no sniffer).
    func magicAllowsZip(_ prefix: ArraySlice<UInt8>) -> Bool {
        sniffer.map { Detection.magicSuggestsZip($0.mimeType(of: prefix)) } ?? true
    }

    /// Encoded sizes up to which decoding a zip-like part whole costs less than asking libmagic
    /// about its first bytes (about 1.4 M instructions; base64 decodes at about 3 instructions a
    /// byte, quoted-printable binary at about 10, a plain copy at well under 1).
    static func decodingIsCheaperThanSniffing(_ encoding: TransferEncoding, rawCount: Int) -> Bool {
        switch encoding {
        case .base64: return rawCount <= 256 * 1024
        case .quotedPrintable: return rawCount <= 64 * 1024
        default: return rawCount <= 1024 * 1024
        }
    }

    /// A part that is (or claims to be) a pass, with the reasons in check order.
    struct Candidate {
        var reasons: [DetectionReason]
        var kind: CandidateKind
        var names: [String]
        /// The decoded body (decoded once: the sniffed prefix is not decoded again).
        var body: [UInt8]
    }

    func candidate(_ part: MIMEPart, in message: MIMEMessage) -> Candidate? {
        candidate(part, in: message, mimeType: part.contentType.mimeType, names: Self.names(of: part))
    }

    /// As `candidate(_:in:)` with the part's `mimeType` and `names(of:)` already made.
    func candidate(_ part: MIMEPart, in message: MIMEMessage, mimeType: String, names: [String]) -> Candidate? {
        // Labels come from a pass type (application/…) or a name; most parts have neither.
        let labels = Self.mayBeApplication(part) || !names.isEmpty
            ? Detection.labels(mimeType: mimeType, names: names) : (reasons: [], kind: nil)
        var reasons = labels.reasons
        var kind = labels.kind
        // One decoder per part: the sniffed prefix and the whole body share its work.
        var decoder = message.bodyDecoder(of: part)
        var body: [UInt8]?
        if Self.startsLikeZip(part, in: message) {
            let prefix = decoder.prefix(limits.sniffBytes)
            // libmagic is a pre-filter that spares decoding the rest of a part that is not a zip.
            // A labelled part is decoded whole anyway, so it is not asked there: the central
            // directory alone decides whether `.magic` joins the reasons (and libmagic, in the
            // filter loaded lazily, is then not loaded at all for a labelled pass).
            // An unlabelled part's content decides when all three agree: the zip signature,
            // libmagic on the prefix (it rules out a Word document or an OpenDocument file), and
            // the central directory. Which of the last two is asked first only changes the cost:
            // libmagic first for a large body (the sniff saves decoding it), the central directory
            // first when decoding costs less than libmagic (nearly every part: then libmagic is
            // asked only about a part whose central directory names a pass).
            let labelled = !reasons.isEmpty
            if ZipSignature.starts(prefix) {
                let magicFirst = !labelled && !decoder.isComplete
                    && !Self.decodingIsCheaperThanSniffing(part.transferEncoding, rawCount: message.rawBody(of: part).count)
                if !magicFirst || magicAllowsZip(prefix) {
                    let decoded = decoder.finish()
                    body = decoded
                    if let entries = ZipProbe.entryNames(decoded, maxEntries: limits.pass.maxEntries),
                       let byContent = Detection.kind(fromEntryNames: entries),
                       labelled || magicFirst || magicAllowsZip(prefix) {
                        reasons.append(.magic)
                        kind = byContent   // the content decides over the label
                    }
                }
            }
        }
        defer { decodeCounter?.count(decoder) }
        guard !reasons.isEmpty, let kind else { return nil }
        return Candidate(reasons: reasons, kind: kind, names: names, body: body ?? decoder.finish())
    }

    /// The cheap look at the still-encoded body; nothing is decoded for parts that fail it.
    package static func startsLikeZip(_ part: MIMEPart, in message: MIMEMessage) -> Bool {
        let raw = message.rawBody(of: part)
        switch part.transferEncoding {
        case .base64: return ZipSignature.startsBase64(raw)
        case .quotedPrintable: return ZipSignature.startsQuotedPrintable(raw)
        case .sevenBit, .eightBit, .binary: return ZipSignature.starts(raw)
        default: return ZipSignature.starts(message.decodedPrefix(of: part, maxBytes: 4)[...])
        }
    }

    /// Every decoded name a part carries: the parser's choice first, then the other parameters.
    package static func names(of part: MIMEPart) -> [String] {
        // No list of the three candidates and no lookups in empty tables: most parts have no
        // name at all, and this runs for every part of every message (issue 17 profile).
        var names: [String] = []
        func add(_ name: String?) {
            if let name, !name.isEmpty, !names.contains(name) { names.append(name) }
        }
        add(part.filename)
        if let parameters = part.disposition?.parameters, !parameters.isEmpty { add(parameters["filename"]) }
        if !part.contentType.parameters.isEmpty { add(part.contentType.parameters["name"]) }
        return names
    }

    /// False when the part's type cannot be an application/… one whatever its essence: then
    /// neither a TNEF nor a pass type can match it, and its essence is not worth making. (A
    /// parsed type and subtype are lowercased tokens: the essence of "text/plain" is itself.)
    static func mayBeApplication(_ part: MIMEPart) -> Bool {
        part.contentType.type == "application"
    }

    /// Adds the record and the library state to a verdict.
    /// `storable` is false when the pass's own bytes are not at hand (a bundle member that
    /// could not be unpacked): then there is no record to store.
    func finish(_ verdict: PassVerdict, bytes: [UInt8], hashed: HashedBytes? = nil, source: PassSourceInfo,
                storable: Bool = true) -> FoundPass {
        let record = storable ? PassRecordMapping.record(verdict: verdict, bytes: bytes, hashed: hashed, source: source,
                                                         receivedAt: now()) : nil
        var state: LibraryState?
        var problem: LibraryError?
        if verdict.status != .invalid, let record, let library {
            (state, problem) = Self.state(of: record, in: library)
        }
        return FoundPass(source: source, verdict: verdict, library: state, record: record, libraryProblem: problem)
    }

    /// What `library` knows about `record`, or why it could not say (never swallowed: a busy
    /// library must not make a pass look new).
    /// Synchronous, as the scan is: the library call runs as a task the scanning thread waits for.
    package static func state(of record: PassRecord, in library: any PassLibraryBackend) -> (LibraryState?, LibraryError?) {
        do {
            return (try Blocking.run { try await library.contains(record) }, nil)
        } catch let error as LibraryError {
            return (nil, error)
        } catch {
            return (nil, LibraryError(.io, "contains: \(error)", path: library.location))
        }
    }
}

extension String {
    /// nil for "", else the string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
