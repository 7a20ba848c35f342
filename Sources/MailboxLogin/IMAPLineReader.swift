import NIOCore

/// Response lines from the server's byte stream: CRLF (or LF) ends a line, a literal a line
/// announces (`{n}`) is skipped, and a line or a conversation that grows past its limit is an
/// error, so a hostile or broken server cannot make the login hold unbounded memory.
struct IMAPLineReader {
    var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    var buffer: [UInt8] = []
    var received = 0
    static let maximumLine = 64 * 1024
    static let maximumConversation = 1024 * 1024

    init(_ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
        self.iterator = iterator
    }

    /// Whether bytes arrived beyond the last line read (after a STARTTLS `OK` that is an attack:
    /// plain-text bytes injected to be read as if they had come over TLS).
    var hasBufferedBytes: Bool { !buffer.isEmpty }

    /// The next line, without its line end; throws when the stream ends first.
    mutating func next() async throws -> [UInt8] {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                if line.last == 0x0D { line.removeLast() }
                if let length = IMAPResponse.literalLength(atEndOf: line) {
                    try await skip(length)
                }
                return line
            }
            guard buffer.count <= Self.maximumLine else { throw IMAPFailure.protocolError("a response line longer than 64 KB") }
            try await fill()
        }
    }

    /// Reads and drops `count` bytes (a literal's content).
    mutating func skip(_ count: Int) async throws {
        while buffer.count < count { try await fill() }
        buffer.removeFirst(count)
    }

    private mutating func fill() async throws {
        guard let chunk = try await iterator.next() else { throw IMAPFailure.closed }
        received += chunk.readableBytes
        guard received <= Self.maximumConversation else { throw IMAPFailure.protocolError("more than 1 MB of answers") }
        buffer.append(contentsOf: chunk.readableBytesView)
    }

    /// The next line that parses as a response (others are skipped).
    mutating func nextResponse() async throws -> IMAPResponse {
        while true {
            if let response = IMAPResponse.parse(try await next()) { return response }
        }
    }
}

/// Why a conversation with the server ended early; each becomes part of a sentence.
enum IMAPFailure: Error {
    case closed
    case protocolError(String)
}
