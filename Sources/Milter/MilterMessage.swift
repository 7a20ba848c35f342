import DeliveryFilter

/// One message as the MTA hands it over (recipients, header fields, body chunks), rebuilt as
/// RFC 5322 bytes in a `FilterSpool`: in memory up to `memoryLimit`, then in a private temporary
/// file. Only the first `keepBytes` are kept (the scan's size cap + 1, so the plan sees the
/// message is oversize); the rest is counted and dropped. Memory is bounded whatever arrives:
/// 100 000 header fields or a 1 GB body cost at most `memoryLimit` plus one packet.
final class MilterMessage {
    let spool: FilterSpool
    let keepBytes: Int
    /// Recipients in the order the MTA gave them, at most `maxRecipients` (the rest are counted).
    private(set) var recipients: [String] = []
    private(set) var recipientCount = 0
    let maxRecipients: Int
    /// The MTA's queue id (Postfix's `{i}` macro, Sendmail's `i`) when it sent one: only
    /// letters and digits, at most 32, for the log line.
    var queueID: String?
    private(set) var headerCount = 0
    /// All bytes the message had, kept or not.
    private(set) var byteCount = 0
    private(set) var headersEnded = false
    /// A protocol oddity (a header after the body started) or a spool failure: the message is
    /// then accepted unchanged, never scanned from bytes that are not what the MTA holds.
    private(set) var problem: String?
    /// Fields of our names that arrived (forged, or from a second pass through a filter), as the
    /// milter removes them: by name and 1-based occurrence among fields of that name. Every path
    /// that accepts the message removes them, whether or not the scan finished.
    private(set) var ownFields: [HeaderEdits.Removal] = []
    private var ownCounts: [String: Int] = [:]

    init(keepBytes: Int, memoryLimit: Int, maxRecipients: Int, temporaryDirectory: String?) {
        self.keepBytes = keepBytes
        self.maxRecipients = maxRecipients
        self.spool = FilterSpool(memoryLimit: memoryLimit, temporaryDirectory: temporaryDirectory)
    }

    var isEmpty: Bool { recipientCount == 0 && headerCount == 0 && byteCount == 0 }

    func addRecipient(_ address: String) {
        recipientCount += 1
        if recipients.count < maxRecipients { recipients.append(address) }
    }

    /// `name:value` + CRLF. With the leading-space step negotiated `value` has its own leading
    /// space; otherwise the MTA stripped one, and it is put back.
    func addHeader(name: [UInt8], value: [UInt8], valueHasLeadingSpace: Bool) {
        if headersEnded {
            problem = problem ?? "a header field arrived after the body had started"
            return
        }
        headerCount += 1
        if name.count == HeaderEdits.summaryName.utf8.count || name.count == HeaderEdits.passName.utf8.count {
            let lower = String(decoding: name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
            if lower == HeaderEdits.summaryName.lowercased() || lower == HeaderEdits.passName.lowercased() {
                let n = (ownCounts[lower] ?? 0) + 1
                ownCounts[lower] = n
                if ownFields.count < 10_000 {
                    ownFields.append(HeaderEdits.Removal(name: String(decoding: name, as: UTF8.self), occurrence: n, range: 0..<0))
                }
            }
        }
        var line = name
        line.append(0x3A)
        if !valueHasLeadingSpace { line.append(0x20) }
        line += value
        line += [13, 10]
        append(line)
    }

    func endHeaders() {
        guard !headersEnded else { return }
        headersEnded = true
        append([13, 10])
    }

    /// A body chunk. A body with no end-of-headers before it (the MTA skipped the step, or a
    /// client sent the body first) gets the empty line that separates it from the header block.
    func addBody(_ chunk: UnsafeRawBufferPointer) {
        endHeaders()
        append(chunk)
    }

    func fail(_ reason: String) { problem = problem ?? reason }

    private func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
        defer { byteCount += bytes.count }
        let room = keepBytes - spool.byteCount
        guard room > 0, problem == nil else { return }
        do {
            try spool.append(UnsafeRawBufferPointer(rebasing: bytes.prefix(room)))
        } catch {
            problem = "spool: \(error)"
        }
    }
}
