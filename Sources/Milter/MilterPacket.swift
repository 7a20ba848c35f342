import NIOCore
import Support

/// One milter packet: the command byte and its payload (the length prefix is gone).
struct MilterPacket {
    var command: UInt8
    var payload: ByteBuffer
}

/// Why a session ended early: the MTA said something the protocol does not allow.
struct MilterProtocolError: Error, Equatable, CustomStringConvertible {
    var description: String
}

/// Splits the byte stream into packets. A length of 0 (no command byte) or past `maxPacketBytes`
/// (a lie, or 4 GB) ends the session at once: the decoder never buffers more than one packet.
struct MilterPacketDecoder: ByteToMessageDecoder {
    typealias InboundOut = MilterPacket
    let maxPacketBytes: Int

    init(maxPacketBytes: Int = MilterProtocol.maxPacketBytes) {
        self.maxPacketBytes = maxPacketBytes
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let packet = try Self.next(from: &buffer, maxPacketBytes: maxPacketBytes) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(packet))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A connection that stops mid-packet: the partial packet is dropped with the session.
        while let packet = try Self.next(from: &buffer, maxPacketBytes: maxPacketBytes) {
            context.fireChannelRead(wrapInboundOut(packet))
        }
        buffer.clear()
        return .needMoreData
    }

    /// The next whole packet in `buffer`, or nil when it has not all arrived yet.
    static func next(from buffer: inout ByteBuffer, maxPacketBytes: Int) throws -> MilterPacket? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return nil }
        guard length >= 1, let size = Int(exactly: length), size <= maxPacketBytes else {
            throw MilterProtocolError(description: "packet length \(length) (allowed 1...\(maxPacketBytes))")
        }
        guard buffer.readableBytes >= 4 + size else { return nil }
        buffer.moveReaderIndex(forwardBy: 4)
        // Both reads succeed: `size` (>= 1) bytes are readable after the length.
        guard let command = buffer.readInteger(as: UInt8.self),
              let payload = buffer.readSlice(length: size - 1) else { return nil }
        return MilterPacket(command: command, payload: payload)
    }
}

/// Builds reply packets.
enum MilterReplyEncoder {
    static func packet(_ reply: MilterProtocol.Reply, _ payload: [UInt8] = [], into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt32(payload.count + 1))
        buffer.writeInteger(reply.rawValue)
        buffer.writeBytes(payload)
    }

    /// `index` (4 bytes), `name` NUL, `value` NUL: SMFIR_INSHEADER and SMFIR_CHGHEADER.
    static func headerPayload(index: UInt32, name: String, value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [UInt8(truncatingIfNeeded: index >> 24), UInt8(truncatingIfNeeded: index >> 16),
                            UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index)]
        out += Array(name.utf8); out.append(0)
        out += value; out.append(0)
        return out
    }
}

extension MilterProtocolError: ProblemReporting {
    var problem: Problem {
        Problem(.milterProtocol, message: "The mail server broke the milter protocol, so the session was ended.", detail: description)
    }
}
