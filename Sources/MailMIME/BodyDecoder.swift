#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes one part's body in two steps that together read each input byte once: a prefix first
/// (what content sniffing looks at), then, only when the caller wants the whole body, the rest.
/// A part that the prefix rules out (a Word document's zip) costs only its prefix; a part that
/// is opened is decoded once, not once for the sniff and again for the opening.
///
/// 7bit, 8bit, binary and unknown bodies are not decoded: their prefix is a slice of the message,
/// no copy at all. uuencode (rare) is decoded whole at the first step.
package struct BodyDecoder {
    private let raw: ArraySlice<UInt8>
    private let encoding: TransferEncoding
    /// The decoded prefix (base64, quoted-printable, uuencode), or everything once `complete`.
    private var head: [UInt8] = []
    private var base64 = TransferDecoder.Base64State()
    /// Quoted-printable: the next input byte.
    private var qpInput = 0
    private var started = false
    /// The whole body is in `head`.
    private var complete = false
    /// Input bytes decoded so far: every byte counts once, however many steps it took.
    package private(set) var inputBytesRead = 0
    /// The whole body is decoded already (`finish()` costs nothing more): a uuencoded body after
    /// `prefix(_:)`, or any body after `finish()`.
    package var isComplete: Bool { complete }

    package init(_ raw: ArraySlice<UInt8>, encoding: TransferEncoding) {
        self.raw = raw
        self.encoding = encoding
    }

    /// At least the first `count` decoded bytes (fewer when the body is shorter), as a slice that
    /// shares storage with the message or with the decoder: nothing is copied to hand it out.
    /// Call it once, before `finish()`; a second call returns the prefix the first one decoded.
    package mutating func prefix(_ count: Int) -> ArraySlice<UInt8> {
        if !encoding.isEncoded { return raw.prefix(count) }
        if !started {
            started = true
            let stopAt = max(count, 1)
            let raw = self.raw
            var state = base64
            var qp = qpInput
            var whole = false
            head = raw.withUnsafeBufferPointer { buf -> [UInt8] in
                switch encoding {
                case .base64:
                    // A step stops at the first group boundary at or past stopAt: a group started
                    // below stopAt writes at most 3 bytes and the fast path's store 4, so stopAt + 4
                    // bytes are enough, and never more than the whole body takes.
                    let capacity = min(stopAt + 4, TransferDecoder.base64Capacity(buf.count))
                    return [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
                        TransferDecoder.base64Step(buf, &state, out, stopAt: stopAt)
                        if state.i >= buf.count || state.done {
                            whole = true
                            written = TransferDecoder.base64Finish(&state, out)
                        } else {
                            written = state.o
                        }
                    }
                case .quotedPrintable:
                    // A step writes at most stopAt bytes, and never more than the input holds.
                    let capacity = min(stopAt, buf.count)
                    let decoded = [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
                        written = TransferDecoder.quotedPrintableStep(buf, &qp, out, written: 0, stopAt: stopAt)
                    }
                    whole = qp >= buf.count
                    return decoded
                default:
                    whole = true
                    return TransferDecoder.decode(raw, encoding: encoding)
                }
            }
            base64 = state
            qpInput = qp
            complete = whole
            switch encoding {
            case .base64: inputBytesRead = state.i
            case .quotedPrintable: inputBytesRead = qp
            default: inputBytesRead = raw.count
            }
        }
        return head.prefix(count)
    }

    /// The whole decoded body: the prefix already decoded, then the rest of the input, read once.
    package mutating func finish() -> [UInt8] {
        if !encoding.isEncoded {
            inputBytesRead = raw.count
            return Array(raw)
        }
        if !started { _ = prefix(0) }
        if complete { return head }
        let done = head
        let raw = self.raw
        var state = base64
        var qp = qpInput
        let whole: [UInt8] = raw.withUnsafeBufferPointer { buf in
            switch encoding {
            case .base64:
                // The whole body's capacity: the fast path's invariant o <= i / 4 * 3 holds from
                // the start of the input, so the step goes on where it stopped.
                return [UInt8](unsafeUninitializedCapacity: TransferDecoder.base64Capacity(buf.count)) { out, written in
                    // done.count == state.o <= capacity: the prefix goes back where it was.
                    if !done.isEmpty { done.withUnsafeBufferPointer { _ = memcpy(out.baseAddress!, $0.baseAddress!, $0.count) } }
                    TransferDecoder.base64Step(buf, &state, out, stopAt: Int.max)
                    written = TransferDecoder.base64Finish(&state, out)
                }
            default:   // quoted-printable: output never outgrows input
                return [UInt8](unsafeUninitializedCapacity: buf.count) { out, written in
                    // done.count <= qp <= buf.count: the prefix goes back where it was.
                    if !done.isEmpty { done.withUnsafeBufferPointer { _ = memcpy(out.baseAddress!, $0.baseAddress!, $0.count) } }
                    written = TransferDecoder.quotedPrintableStep(buf, &qp, out, written: done.count, stopAt: Int.max)
                }
            }
        }
        base64 = state
        qpInput = qp
        inputBytesRead = raw.count
        complete = true
        head = whole
        return whole
    }
}
