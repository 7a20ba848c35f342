import Foundation
import MailMIME

/// Counts the body decoding a `PassScanner` does, for tests that hold it to decoding each
/// candidate part once (a sniffed prefix is not decoded again for the opening).
package final class DecodeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var parts = 0
    private var bytes = 0

    package init() {}

    /// Parts whose decoder ran (prefix, whole body, or both).
    package var partsDecoded: Int { lock.lock(); defer { lock.unlock() }; return parts }
    /// Encoded input bytes read by those decoders, in all.
    package var inputBytesRead: Int { lock.lock(); defer { lock.unlock() }; return bytes }

    func count(_ decoder: BodyDecoder) {
        guard decoder.inputBytesRead > 0 else { return }
        lock.lock()
        parts += 1
        bytes += decoder.inputBytesRead
        lock.unlock()
    }
}
