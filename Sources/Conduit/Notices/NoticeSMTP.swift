import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Mail submission by SMTP (RFC 5321), the second route for a notice beside `sendmail`
/// (`[notices] smtp = "HOST:PORT"`): EHLO, MAIL FROM, RCPT TO, DATA, QUIT over one plain TCP
/// connection, as to the host's own Postfix on loopback or a relay on a private network. No
/// STARTTLS and no AUTH: a server that needs either is reached through the local MTA's
/// `sendmail` instead. Blocking, with a time limit on every read and write.
package struct NoticeSMTP: Sendable {
    package var server: NoticeSettings.SMTPServer
    /// The name this client gives in EHLO.
    package var helo = "localhost"
    /// Seconds each connect, read and write may take.
    package var timeout: TimeInterval = 30

    package init(server: NoticeSettings.SMTPServer) {
        self.server = server
    }

    /// Why a submission failed: the step and what the server said (its reply, cleaned and cut).
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Hands `message` (LF or CRLF line ends) for `recipient` to the server, the envelope sender
    /// `sender` (nil: the null sender `<>`, as for any auto-generated message no one answers).
    package func send(_ message: [UInt8], from sender: String?, to recipient: String) throws {
        let socket = try connect()
        defer { close(socket) }
        var connection = Connection(socket: socket, server: server.description)
        try connection.expect(220, "greeting")
        try connection.command("EHLO \(helo)")
        let ehlo = try connection.expect(250, "EHLO")
        let eightBit = ehlo.contains { $0.uppercased().hasPrefix("8BITMIME") }
        try connection.command("MAIL FROM:<\(sender ?? "")>" + (eightBit ? " BODY=8BITMIME" : ""))
        try connection.expect(250, "MAIL FROM")
        try connection.command("RCPT TO:<\(recipient)>")
        try connection.expect(250, "RCPT TO", also: [251])
        try connection.command("DATA")
        try connection.expect(354, "DATA")
        try connection.write(Self.dataSection(message))
        try connection.expect(250, "the message")
        try? connection.command("QUIT")
    }

    /// The message as the DATA section: CRLF line ends, a line starting with "." doubled
    /// (transparency, RFC 5321 4.5.2), ended by "CRLF . CRLF".
    static func dataSection(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + message.count / 40 + 5)
        var lineStart = true
        var previous: UInt8 = 0
        for byte in message {
            if lineStart && byte == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
            if byte == UInt8(ascii: "\n") && previous != UInt8(ascii: "\r") { out.append(UInt8(ascii: "\r")) }
            out.append(byte)
            lineStart = byte == UInt8(ascii: "\n")
            previous = byte
        }
        if !lineStart { out += [13, 10] }
        out += Array(".\r\n".utf8)
        return out
    }

    private func connect() throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(server.host, String(server.port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "the SMTP server \(server) has no address (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(first) }
        var lastError: Int32 = 0
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = errno; continue }
            var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            lastError = errno
            close(fd)
        }
        throw Failure(description: "cannot connect to the SMTP server \(server) (\(String(cString: strerror(lastError))))")
    }

    /// One connection's reads and writes.
    struct Connection {
        let socket: Int32
        let server: String
        var buffer: [UInt8] = []

        mutating func command(_ line: String) throws {
            try write(Array((line + "\r\n").utf8))
        }

        func write(_ bytes: [UInt8]) throws {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw Failure(description: "the SMTP server \(server) stopped taking data (\(String(cString: strerror(errno))))") }
                offset += n
            }
        }

        /// One reply's lines (without code and separator); throws unless its code is `code`
        /// (or one of `also`).
        @discardableResult
        mutating func expect(_ code: Int, _ step: String, also: [Int] = []) throws -> [String] {
            var lines: [String] = []
            while true {
                let line = try readLine()
                guard line.count >= 3, let got = Int(line.prefix(3)) else {
                    throw Failure(description: "the SMTP server \(server) answered \(step) with no reply code: \(Self.shown(line))")
                }
                lines.append(String(line.dropFirst(4)))
                if line.count == 3 || line[line.index(line.startIndex, offsetBy: 3)] != "-" {
                    guard got == code || also.contains(got) else {
                        throw Failure(description: "the SMTP server \(server) refused \(step): \(Self.shown(line))")
                    }
                    return lines
                }
                guard lines.count < 100 else { throw Failure(description: "the SMTP server \(server) sent an endless reply to \(step)") }
            }
        }

        /// A reply line as it may appear in a log line: printable ASCII, at most 200 characters.
        static func shown(_ line: String) -> String {
            String(String(line.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : " " }).prefix(200))
        }

        mutating func readLine() throws -> String {
            while true {
                if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = Array(buffer[..<end])
                    buffer.removeSubrange(...end)
                    if line.last == UInt8(ascii: "\r") { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                guard buffer.count < 4096 else { throw Failure(description: "the SMTP server \(server) sent a line longer than 4 KB") }
                var chunk = [UInt8](repeating: 0, count: 1024)
                let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw Failure(description: n == 0 ? "the SMTP server \(server) closed the connection"
                                                      : "no answer from the SMTP server \(server) (\(String(cString: strerror(errno))))")
                }
                buffer += chunk[..<n]
            }
        }
    }
}
