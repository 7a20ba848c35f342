import XCTest
@testable import MailMIME
import TestRandom

/// The fast decoders against the straightforward versions they replaced (issue 17): same output on
/// inputs made to hit every branch (begin/end lines, CR LF, short and over-long lines, a last line
/// without its LF, bytes outside the alphabet).
final class ReferenceDecoderTests: XCTestCase {
    /// The uudecode before issue 17 (LineIterator, byte-wise appends), kept as the reference.
    static func referenceUudecode(_ input: ArraySlice<UInt8>) -> [UInt8] {
        func lines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
            var result: [ArraySlice<UInt8>] = []
            var i = bytes.startIndex
            while i < bytes.endIndex {
                let start = i
                while i < bytes.endIndex, bytes[i] != 0x0A { i += 1 }
                var end = i
                if i < bytes.endIndex { i += 1 }
                if end > start, bytes[end - 1] == 0x0D { end -= 1 }
                result.append(bytes[start..<end])
            }
            return result
        }
        var out = [UInt8]()
        let all = lines(input)
        var started = !all.contains { $0.starts(with: "begin ".utf8) }
        for line in all {
            if !started {
                if line.starts(with: "begin ".utf8) { started = true }
                continue
            }
            if line.starts(with: "end".utf8) && line.count <= 4 { break }
            guard let first = line.first else { continue }
            let count = Int((first &- 0x20) & 0x3F)
            if count == 0 { continue }
            var produced = 0
            var k = line.startIndex + 1
            func sixBits(_ at: Int) -> UInt32 { UInt32(((at < line.endIndex ? line[at] : 0x20) &- 0x20) & 0x3F) }
            while produced < count && k < line.endIndex {
                let triple = sixBits(k) << 18 | sixBits(k + 1) << 12 | sixBits(k + 2) << 6 | sixBits(k + 3)
                out.append(UInt8(truncatingIfNeeded: triple >> 16))
                if produced + 1 < count { out.append(UInt8(truncatingIfNeeded: triple >> 8)) }
                if produced + 2 < count { out.append(UInt8(truncatingIfNeeded: triple)) }
                produced += 3
                k += 4
            }
        }
        return out
    }

    /// A uuencoded-looking body from random pieces.
    static func randomUuencoded(_ rng: inout SeededGenerator) -> [UInt8] {
        var out: [UInt8] = []
        let pieces: [[UInt8]] = [Array("begin 644 x.bin".utf8), Array("end".utf8), Array("end ".utf8), Array("endless".utf8),
                                 Array("begin".utf8), [], [0x60], [0x20], Array("junk line".utf8)]
        for _ in 0..<Int.random(in: 0...40, using: &rng) {
            switch Int.random(in: 0...5, using: &rng) {
            case 0: out += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
            case 1:
                // A line with any length character and any number of characters (short, exact, over-long).
                out.append(UInt8.random(in: 0x20...0x60, using: &rng))
                for _ in 0..<Int.random(in: 0...90, using: &rng) { out.append(UInt8.random(in: 0x20...0x60, using: &rng)) }
            case 2:
                for _ in 0..<Int.random(in: 0...10, using: &rng) { out.append(UInt8.random(in: 0...255, using: &rng)) }
            default:
                // A well-formed line of 45 bytes.
                out.append(0x4D)
                for _ in 0..<60 { out.append(UInt8.random(in: 0x21...0x60, using: &rng)) }
            }
            switch Int.random(in: 0...3, using: &rng) {
            case 0: out += [0x0D, 0x0A]
            case 1: out += [0x0D]
            default: out += [0x0A]
            }
        }
        if Bool.random(using: &rng), let last = out.last, last == 0x0A { out.removeLast() }
        return out
    }

    func testUudecodeMatchesTheReference() {
        var rng = SeededGenerator(state: 0x5C4A_1717)
        for round in 0..<3000 {
            let input = Self.randomUuencoded(&rng)
            // Also as a slice that does not start at index 0.
            let padded = [0x41, 0x0A] + input
            XCTAssertEqual(TransferDecoder.uudecode(input[...]), Self.referenceUudecode(input[...]), "round \(round)")
            XCTAssertEqual(TransferDecoder.uudecode(padded[2...]), Self.referenceUudecode(padded[2...]), "round \(round)")
        }
        XCTAssertEqual(TransferDecoder.uudecode([][...]), [])
        XCTAssertEqual(TransferDecoder.uudecode(Array("M".utf8)[...]), Self.referenceUudecode(Array("M".utf8)[...]))
        XCTAssertEqual(TransferDecoder.uudecode(Array("begin 6 x\r".utf8)[...]), [])
    }
}

/// Charset name folding with its ASCII fast path against the Foundation string operations it
/// replaced (issue 17).
final class ReferenceCharsetNameTests: XCTestCase {
    /// The first steps of `Charset.canonicalName` before issue 17.
    static func referenceFold(_ raw: String) -> String {
        raw.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "_", with: "-")
    }

    func testASCIIFoldMatchesTheReference() {
        var names = ["UTF-8", " utf8 ", "\tISO8859_1\t", "iso8859-15:1987", "X-Unknown", "CP1252", "Win-1251", "windows-1250",
                     "Shift_JIS", "KS_C_5601-1987", "", " ", "\t \t", "latin1", "US-ASCII", "x-mac-roman", "GB_2312", "big5HKSCS",
                     "utf\u{A0}8", "\u{3000}utf-8\u{3000}", "ÜTF-8", "koi8R", "\u{0B}utf-8\u{0C}", "\r\nutf-8", "a_b_c"]
        var rng = SeededGenerator(state: 0xC4A5E7)
        let alphabet: [Character] = Array("abcxyzABCXYZ0123456789-_:.() \t\r\n\u{0B}") + ["é", "\u{A0}", "\u{3000}", "ß", "İ"]
        for _ in 0..<3000 {
            names.append(String((0..<Int.random(in: 0...14, using: &rng)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }))
        }
        var fast = 0
        for name in names {
            let folded = Charset.foldedASCII(name)
            XCTAssertEqual(folded == nil, name.utf8.contains { $0 >= 0x80 }, "\(Array(name.utf8))")
            if let folded {
                fast += 1
                XCTAssertEqual(folded, Self.referenceFold(name), "\(Array(name.utf8))")
            }
        }
        XCTAssertGreaterThan(fast, 1000)
        XCTAssertEqual(Charset.canonicalName(" ISO8859_1 "), "iso-8859-1")
        XCTAssertEqual(Charset.canonicalName("\u{3000}UTF_8"), "utf-8")
    }
}
