// libFuzzer entry point for MailMIME; see Fuzz/README.md for the build and run commands.
// No top-level code here: libFuzzer owns main, and top-level globals would never be initialised.
import MailMIME
#if canImport(Glibc)
import Glibc
#endif

enum FuzzScratch {
    /// One unlinked temporary file reused for every input, so the mbox reader runs on a real descriptor.
    static let fd: Int32 = {
        var template = Array("/tmp/fuzzmime-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        precondition(fd >= 0, "mkstemp failed")
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }()

    /// Small limits so the fuzzer reaches the depth, part, header and size caps quickly.
    static let tight: MIMELimits = {
        var l = MIMELimits()
        l.maxDepth = 12
        l.maxParts = 64
        l.maxHeaderBytes = 512
        l.maxMessageBytes = 4096
        return l
    }()
}

func exercise(_ message: MIMEMessage) {
    _ = message.subject
    _ = message.messageID
    for field in message.headers { _ = field.value }
    for part in message.parts {
        precondition(part.bodyRange.upperBound <= message.buffers[part.buffer].count, "body range past its buffer")
        precondition(part.headerRange.upperBound <= part.bodyRange.lowerBound, "header range overlaps body")
        _ = message.decodedBody(of: part)
        _ = message.decodedPrefix(of: part, maxBytes: 8)
        _ = message.headerFields(of: part).map(\.value)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMIME(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    exercise(MIMEParser.parse(bytes))
    exercise(MIMEParser.parse(bytes, limits: FuzzScratch.tight))

    // The mbox splitter, reading in 64-byte chunks so messages straddle reads.
    let fd = FuzzScratch.fd
    _ = ftruncate(fd, 0)
    _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, size, 0) }
    _ = lseek(fd, 0, SEEK_SET)
    var reader = MboxReader(fileDescriptor: fd, limits: FuzzScratch.tight, chunkSize: 64)
    var total = 0
    while let message = try? reader.next() {
        precondition(message.oversize || message.bytes.count <= message.byteCount, "unquoting grew a message")
        total += message.byteCount
        precondition(total <= size, "messages longer than the input")
        if !message.oversize { exercise(MIMEParser.parse(message.bytes, limits: FuzzScratch.tight)) }
    }
    return 0
}
