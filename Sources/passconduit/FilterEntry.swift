#if canImport(Glibc)
import Glibc
#endif

/// `passconduit filter` bypasses ArgumentParser's own exit codes: a delivery filter may only ever
/// exit 0 (complete message written) or 75 (nothing written, the MTA retries). See DESIGN.md,
/// "The delivery-filter contract". This first version passes the message through unchanged.
enum FilterEntry {
    static func run(arguments: [String]) -> Never {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        var message: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n > 0 { message.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            exit(75)
        }
        var offset = 0
        while offset < message.count {
            let n = message.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            exit(offset == 0 ? 75 : 74)
        }
        exit(0)
    }
}
