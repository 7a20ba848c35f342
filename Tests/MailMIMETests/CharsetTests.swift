import XCTest
@testable import MailMIME

/// The iconv-backed charset converter: every charset mail uses, invalid input replaced rather than
/// cut, stateful ISO-2022 decoders that never leak ESC, unknown names as defects, and converters
/// shared safely between threads. Expected strings are what Python's codecs encode them from.
final class CharsetTests: XCTestCase {
    private func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    func testEastAsianCharsetsDecode() {
        // Bytes from Python: "您的登机牌".encode("gb2312") etc.
        XCTAssertEqual(Charset.decode(hex("c4fab5c4b5c7bbfac5c6"), charset: "GB2312"), "您的登机牌")
        XCTAssertEqual(Charset.decode(hex("c4fab5c4b5c7bbfac5c6"), charset: "x-gbk"), "您的登机牌")
        XCTAssertEqual(Charset.decode(hex("c5bebdc2b1c7"), charset: "EUC-KR"), "탑승권")
        XCTAssertEqual(Charset.decode(hex("c5bebdc2b1c7"), charset: "ks_c_5601-1987"), "탑승권")
        XCTAssertEqual(Charset.decode(Array("\u{1B}$)C\u{0E}E>=B1G\u{0F}".utf8), charset: "ISO-2022-KR"), "탑승권")
        XCTAssertEqual(Charset.decode(Array("\u{1B}$BEk>h7t\u{1B}(B".utf8), charset: "iso-2022-jp"), "搭乗券")
        XCTAssertEqual(Charset.decode(hex("c5ebbee8b7f4"), charset: "EUC-JP"), "搭乗券")
        XCTAssertEqual(Charset.decode(hex("938b8fe68c94"), charset: "Shift_JIS"), "搭乗券")
        XCTAssertEqual(Charset.decode(hex("5c"), charset: "shift_jis"), "\\", "mail means a backslash, not a yen sign")
        XCTAssertEqual(Charset.decode(hex("b56ebef7c3d2"), charset: "Big5"), "登機證")
        XCTAssertEqual(Charset.decode(hex("95328236a2e3"), charset: "GB18030"), "𠀀€")
        XCTAssertEqual(Charset.decode(hex("9def"), charset: "Big5-HKSCS"), "嘅")
    }

    func testSingleByteCharsetsDecode() {
        XCTAssertEqual(Charset.decode(hex("f0cfd3c1c4cfdeced9ca"), charset: "KOI8-R"), "Посадочный")
        XCTAssertEqual(Charset.decode(hex("a6a7"), charset: "koi8-u"), "ії")
        XCTAssertEqual(Charset.decode(hex("c1e8ebe5f2"), charset: "cp1251"), "Билет")
        XCTAssertEqual(Charset.decode(hex("bad1b5c3"), charset: "TIS-620"), "บัตร")
        // Windows-1258 "a" + combining dot below (0xF2): glibc composes it.
        XCTAssertEqual(Charset.decode(hex("61f2"), charset: "windows-1258"), "ạ")
        XCTAssertEqual(Charset.decode(hex("a3f364bc"), charset: "ISO8859_2"), "Łódź")
        XCTAssertEqual(Charset.decode(hex("a4"), charset: "latin9"), "€")
        XCTAssertEqual(Charset.decode(hex("e9"), charset: "x-mac-roman"), "È")
    }

    func testInvalidSequencesAreReplacedAndTheRestKept() {
        // A lone lead byte in the middle of GB2312 text, and one cut off at the end.
        XCTAssertEqual(Charset.decode(hex("c4fa") + [0xFF] + hex("b5c4"), charset: "gb2312"), "您\u{FFFD}的")
        XCTAssertEqual(Charset.decode(hex("c4fab5"), charset: "gb2312"), "您\u{FFFD}")
        // An undefined Windows-1252 byte (0x81) and invalid UTF-8.
        XCTAssertEqual(Charset.decode([0x61, 0x81, 0x62], charset: "windows-1252"), "a\u{FFFD}b")
        XCTAssertEqual(Charset.decode([0x61, 0xC3, 0x62], charset: "utf-8"), "a\u{FFFD}b")
        // Shift_JIS: a lead byte followed by an invalid trail.
        XCTAssertEqual(Charset.decode(hex("938b81") + Array(" ok".utf8), charset: "shift_jis"), "搭\u{FFFD} ok")
    }

    func testISO2022NeverLeaksEscapeOrShiftBytes() {
        // A bogus escape sequence, a missing designation and a stray SO: the text goes on, the
        // control bytes become U+FFFD (or are consumed as shifts), never ESC/SO/SI in the output.
        let inputs: [(String, [UInt8])] = [
            ("iso-2022-jp", Array("\u{1B}$BEk\u{1B}(Zabc\u{1B}$B>h\u{1B}(B end".utf8)),
            ("iso-2022-jp", Array("\u{1B}$BEk>h".utf8)),  // never returns to ASCII
            ("iso-2022-jp", Array("\u{1B}".utf8)),
            ("iso-2022-kr", Array("\u{0E}E>\u{0F} plain \u{1B}$)C\u{0E}=B\u{1B}x\u{0F}".utf8)),
            ("iso-2022-kr", Array("\u{1B}$)C\u{0E}E".utf8)),  // cut inside a character
        ]
        for (charset, bytes) in inputs {
            let text = Charset.decode(bytes, charset: charset)
            for s in text.unicodeScalars {
                XCTAssertFalse([0x1B, 0x0E, 0x0F].contains(s.value), "\(charset) leaked \(s.value) in \(text.debugDescription)")
            }
        }
        XCTAssertTrue(Charset.decode(Array("\u{1B}$BEk\u{1B}(Zabc\u{1B}$B>h\u{1B}(B end".utf8), charset: "iso-2022-jp").hasSuffix(" end"))
        // The shift state of one call does not carry into the next (the cached converter is reset).
        XCTAssertEqual(Charset.decode(Array("\u{1B}$BEk".utf8), charset: "iso-2022-jp"), "搭")
        XCTAssertEqual(Charset.decode(Array("Ek".utf8), charset: "iso-2022-jp"), "Ek")
    }

    func testOutputIsBounded() {
        let input = [UInt8](repeating: 0xFF, count: 100_000)  // every byte invalid in EUC-KR
        let text = Charset.decode(input, charset: "euc-kr")
        XCTAssertLessThanOrEqual(text.utf8.count, Charset.maxOutputBytes(forInput: input.count))
        XCTAssertEqual(text.unicodeScalars.count, 100_000)
    }

    func testUnknownCharsetsKeepTheLenientRuleAndAreReported() {
        XCTAssertEqual(Charset.decodeReporting(Array("café".utf8), charset: "x-no-such-charset").text, "café")
        XCTAssertEqual(Charset.decodeReporting([0x63, 0x61, 0x66, 0xE9], charset: "x-no-such-charset").text, "café")
        XCTAssertFalse(Charset.decodeReporting([0x41], charset: "x-no-such-charset").known)
        XCTAssertFalse(Charset.isKnown("utf-8//TRANSLIT"), "iconv suffixes are never passed through")
        XCTAssertFalse(Charset.isKnown("../../etc/passwd"))
        XCTAssertTrue(Charset.isKnown("Big5-HKSCS"))

        let message = """
        Subject: =?x-klingon?Q?Qapla=27?= and =?utf-8?q?ok?=
        Content-Type: application/octet-stream; name*=x-vulcan''%41%42.pkpass
        Content-Disposition: attachment; filename="=?x-romulan?B?Y2Fm6Q==?=.pkpass"

        body
        """
        let parsed = MIMEParser.parse(Array(message.utf8))
        XCTAssertEqual(parsed.subject, "Qapla' and ok")
        XCTAssertEqual(parsed.parts[0].filename, "café.pkpass")
        let unknown = parsed.parts[0].defects.filter { $0.code == .unknownCharset }.map(\.detail)
        XCTAssertEqual(Set(unknown), ["x-vulcan", "x-romulan", "x-klingon"])
    }

    func testConvertersAreSafeUnderConcurrency() {
        // Stateful decoders (ISO-2022) on many threads at once: any shared iconv_t would mix states.
        let jp = Array("\u{1B}$BEk>h7t\u{1B}(B abc".utf8)
        let kr = Array("\u{1B}$)C\u{0E}E>=B1G\u{0F} abc".utf8)
        final class Tally: @unchecked Sendable {  // `ok` is only touched under `lock`
            let lock = NSLock()
            var ok = 0
        }
        let tally = Tally()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var ok = true
            for k in 0..<2_000 {
                if (k + worker) % 2 == 0 {
                    ok = ok && Charset.decode(jp, charset: "ISO-2022-JP") == "搭乗券 abc"
                } else {
                    ok = ok && Charset.decode(kr, charset: "iso-2022-kr") == "탑승권 abc"
                }
            }
            tally.lock.lock()
            if ok { tally.ok += 1 }
            tally.lock.unlock()
        }
        XCTAssertEqual(tally.ok, 8, "every worker decoded every text right")
    }
}
