import NIOCore

/// One MTA connection's protocol state: negotiation, then messages (recipients, headers, body,
/// end of message), any number of them, until QUIT. It answers every command the MTA expects an
/// answer to and nothing else (the negotiated no-reply steps), and hands each complete message
/// to the caller at end of message. No I/O here: `MilterHandler` moves the bytes.
final class MilterSession {
    /// What the caller does after one packet.
    enum Step {
        /// Nothing to send.
        case none
        /// Send these reply packets.
        case send([UInt8])
        /// The message is complete: scan it, then send `MilterSession.replies(for:)`.
        case endOfMessage(MilterMessage)
        /// End the session (QUIT, or a command the protocol does not allow).
        case close(reason: String?)
    }

    struct Limits: Sendable {
        /// Message bytes kept for the scan (the scan cap + 1); the rest is counted only.
        var keepBytes = 25 << 20 + 1
        /// Message bytes kept in memory before the spool moves to a temporary file.
        var memoryBytes = 1 << 20
        /// Recipients remembered per message (for their libraries); the rest are counted.
        var maxRecipients = 1000
        var temporaryDirectory: String? = nil
    }

    let limits: Limits
    private(set) var negotiated = false
    private(set) var actions: MilterProtocol.Actions = []
    private(set) var steps: MilterProtocol.Steps = []
    private(set) var message: MilterMessage?
    private(set) var messageCount = 0
    /// The queue id from the last `i` macro of the current message.
    private(set) var queueID: String?

    init(limits: Limits) {
        self.limits = limits
    }

    /// Header values carry their leading space (sent and received).
    var leadingSpace: Bool { steps.contains(.headerLeadingSpace) }

    func receive(_ packet: MilterPacket) -> Step {
        guard let command = MilterProtocol.Command(rawValue: packet.command) else {
            return .close(reason: "unknown command 0x\(String(packet.command, radix: 16))")
        }
        if !negotiated && command != .optionNegotiation && command != .macro {
            return .close(reason: "command \(command) before option negotiation")
        }
        var payload = packet.payload
        switch command {
        case .optionNegotiation:
            return negotiate(&payload)
        case .macro:
            // Only the queue id is kept (for the log line); other macros are never stored.
            if let id = Self.queueID(inMacros: &payload) { queueID = id }
            return .none
        case .connect:
            resetMessage()
            return reply(unless: .noReplyConnect)
        case .helo:
            return reply(unless: .noReplyHelo)
        case .mail:
            resetMessage()
            return reply(unless: .noReplyMail)
        case .recipient:
            let address = Self.cString(&payload) ?? ""
            currentMessage().addRecipient(address)
            return reply(unless: .noReplyRecipient)
        case .data:
            return reply(unless: .noReplyData)
        case .unknown:
            return reply(unless: .noReplyUnknown)
        case .header:
            guard let name = Self.cStringBytes(&payload), let value = Self.cStringBytes(&payload), !name.isEmpty else {
                return .close(reason: "malformed header packet")
            }
            currentMessage().addHeader(name: name, value: value, valueHasLeadingSpace: leadingSpace)
            return reply(unless: .noReplyHeader)
        case .endOfHeaders:
            currentMessage().endHeaders()
            return reply(unless: .noReplyEndOfHeaders)
        case .body:
            let m = currentMessage()
            payload.withUnsafeReadableBytes { m.addBody($0) }
            return reply(unless: .noReplyBody)
        case .endOfMessage:
            // A last body chunk may ride on the end-of-message packet.
            let m = currentMessage()
            if payload.readableBytes > 0 { payload.withUnsafeReadableBytes { m.addBody($0) } }
            m.queueID = queueID
            queueID = nil
            message = nil
            messageCount += 1
            return .endOfMessage(m)
        case .abort:
            resetMessage()
            return .none
        case .quitNewConnection:
            resetMessage()
            return .none
        case .quit:
            resetMessage()
            return .close(reason: nil)
        }
    }

    /// The MTA offers a version, actions and steps; we take version 6 (or its lower one), the two
    /// header actions, and the skip/no-reply steps it offers that we want.
    private func negotiate(_ payload: inout ByteBuffer) -> Step {
        guard !negotiated else { return .close(reason: "second option negotiation") }
        guard let version = payload.readInteger(as: UInt32.self),
              let offeredActions = payload.readInteger(as: UInt32.self),
              let offeredSteps = payload.readInteger(as: UInt32.self) else {
            return .close(reason: "short option negotiation")
        }
        guard version >= 2 else { return .close(reason: "milter protocol version \(version) is too old") }
        negotiated = true
        actions = MilterProtocol.Actions(rawValue: offeredActions).intersection(.wanted)
        steps = MilterProtocol.Steps(rawValue: offeredSteps).intersection(.wanted)
        var body: [UInt8] = []
        for word in [min(version, MilterProtocol.version), actions.rawValue, steps.rawValue] {
            body += Self.bigEndian(word)
        }
        return .send(Self.packet(.optionNegotiation, body))
    }

    private func reply(unless noReply: MilterProtocol.Steps) -> Step {
        steps.contains(noReply) ? .none : .send(Self.packet(.continue))
    }

    private func currentMessage() -> MilterMessage {
        if let message { return message }
        let m = MilterMessage(keepBytes: limits.keepBytes, memoryLimit: limits.memoryBytes,
                              maxRecipients: limits.maxRecipients, temporaryDirectory: limits.temporaryDirectory)
        message = m
        return m
    }

    private func resetMessage() {
        message = nil
        queueID = nil
    }

    /// The `i` or `{i}` macro's value among a SMFIC_MACRO packet's pairs (after its command
    /// byte): letters and digits only (Postfix's ids are), at most 32; nil when there is none.
    static func queueID(inMacros payload: inout ByteBuffer) -> String? {
        guard payload.readInteger(as: UInt8.self) != nil else { return nil }
        var found: String?
        while let name = cStringBytes(&payload), let value = cStringBytes(&payload) {
            guard name == [0x69] || name == [0x7B, 0x69, 0x7D] else { continue }   // "i" or "{i}"
            let id = value.prefix(32)
            guard !id.isEmpty, id.count == value.count,
                  id.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else { continue }
            found = String(decoding: id, as: UTF8.self)
        }
        return found
    }

    // MARK: - Bytes

    static func packet(_ reply: MilterProtocol.Reply, _ payload: [UInt8] = []) -> [UInt8] {
        bigEndian(UInt32(payload.count + 1)) + [reply.rawValue] + payload
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
         UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    /// The bytes up to the next NUL (consumed with it); nil when there is no NUL.
    static func cStringBytes(_ buffer: inout ByteBuffer) -> [UInt8]? {
        guard let nul = buffer.readableBytesView.firstIndex(of: 0) else { return nil }
        let length = nul - buffer.readableBytesView.startIndex
        let bytes = buffer.readBytes(length: length)
        buffer.moveReaderIndex(forwardBy: 1)
        return bytes
    }

    static func cString(_ buffer: inout ByteBuffer) -> String? {
        cStringBytes(&buffer).map { String(decoding: $0, as: UTF8.self) }
    }
}
