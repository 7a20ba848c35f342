#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads one whole message from a descriptor (a file or stdin). Over `MIMELimits.maxMessageBytes`
/// the rest is read and counted but not kept, and the message comes back `oversize`.
package struct SingleMessageReader: MessageReader {
    private let input: ChunkedInput
    private let limits: MIMELimits
    private var done = false

    package init(fileDescriptor: Int32, prefix: [UInt8] = [], limits: MIMELimits = .default, name: String? = nil) {
        input = ChunkedInput(fd: fileDescriptor, name: name ?? "fd \(fileDescriptor)", prefix: prefix)
        self.limits = limits
    }

    /// Reads the regular file open at `fileDescriptor` through a read-only mapping, from byte
    /// `skip` on; nil when it cannot be mapped (then stream it with the other initializer).
    package init?(mappedFile fileDescriptor: Int32, skip: Int = 0, limits: MIMELimits = .default, name: String? = nil) {
        guard let mapped = ChunkedInput(mapping: fileDescriptor, name: name ?? "fd \(fileDescriptor)", skip: skip) else { return nil }
        input = mapped
        self.limits = limits
    }

    /// Reads an input held in memory (an upload), from byte `skip` on.
    package init(bytes: ArraySlice<UInt8>, skip: Int = 0, limits: MIMELimits = .default, name: String) {
        input = ChunkedInput(bytes: bytes, name: name, skip: skip)
        self.limits = limits
    }

    /// Whether the input is read through a mapping (tests).
    package var isMapped: Bool { input.isMapped }

    package mutating func next() throws -> MailboxMessage? {
        guard !done else { return nil }
        done = true
        var dropped = 0
        while !input.eof {
            try input.fill()
            if input.count > limits.maxMessageBytes {
                dropped += input.count
                input.consume(upTo: input.end)
            }
        }
        // A mapped file is whole at once: its size alone can make it oversize.
        if dropped > 0 || input.count > limits.maxMessageBytes {
            return MailboxMessage(index: 1, bytes: [], path: nil, byteCount: dropped + input.count, oversize: true)
        }
        let bytes = Array(input.storage[input.start..<input.end])
        input.consume(upTo: input.end)
        return MailboxMessage(index: 1, bytes: bytes, path: nil, byteCount: bytes.count, oversize: false)
    }
}
