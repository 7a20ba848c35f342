import Foundation
import XCTest
@testable import DeliveryFilter
import TestRandom

/// A scanner that reports what it is told: exercises spooling, headers and deadlines apart from
/// pass verification.
struct FixedScanner: FilterPassScanning {
    var reports: [FilterPassReport]
    var delay: UInt32 = 0
    func scan(message: [UInt8]) throws -> [FilterPassReport] {
        if delay > 0 { usleep(delay) }
        return reports
    }
}

struct ThrowingScanner: FilterPassScanning {
    struct Broken: Error {}
    func scan(message: [UInt8]) throws -> [FilterPassReport] { throw Broken() }
}

enum FilterCorpus {
    /// The repository root (…/Tests/DeliveryFilterTests/<this file> -> …).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `$PASSCONDUIT_MIME_CORPUS`; else the copy of the MIME corpus in the checkout,
    /// `Tests/Corpus/mime` (its MANIFEST.md gives each file's origin).
    static var mimeCorpus: URL {
        if let dir = ProcessInfo.processInfo.environment["PASSCONDUIT_MIME_CORPUS"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        return repositoryRoot.appendingPathComponent("Tests/Corpus/mime")
    }

    /// Every regular file under `dir` (sorted, so runs are reproducible).
    static func files(under dir: URL, extensions: Set<String>? = nil) -> [URL] {
        guard let e = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var out: [URL] = []
        for case let url as URL in e {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            if let extensions, !extensions.contains(url.pathExtension.lowercased()) { continue }
            out.append(url)
        }
        return out.sorted { $0.path < $1.path }
    }

    /// The message files listed in the corpus index (column 1 = path, column 3 = kind).
    static func indexedMessages() -> [URL] {
        guard let tsv = try? String(contentsOf: mimeCorpus.appendingPathComponent("index.tsv"), encoding: .utf8) else { return [] }
        return tsv.split(separator: "\n").dropFirst().compactMap { line in
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard let path = cols.first else { return nil }
            return mimeCorpus.appendingPathComponent(String(path))
        }
    }

    /// Hand-made edge cases: line endings, From_ lines, forged headers, NULs, no final newline.
    static let edgeCases: [[UInt8]] = [
        [], [0x0A], [0x0D], Array("X".utf8),
        Array("Subject: x\n\nbody".utf8),
        Array("Subject: x\r\n\r\nbody\r\n".utf8),
        Array("Subject: mixed\r\nTo: y\n\nbody\r\nline\n".utf8),
        Array("From a@b Sat Nov 21 12:00:00 2026\nSubject: x\n\n>From here\nbody\n".utf8),
        Array("Subject: header only\n".utf8),
        Array("X-Passconduit: 7 passes (7 new)\nX-Passconduit-Pass: valid; new; org=\"Forged\"\nSubject: x\n\nb\n".utf8),
        Array("Subject: nul\0inside\n\nbody\0\0\n".utf8),
        Array("Subject: 8bit \u{e9}\u{ff}\n\n\u{1F3AB}\n".utf8),
        Array(("Subject: long\n" + String(repeating: "x", count: 5000) + "\n\n").utf8),
        [UInt8](repeating: 0x41, count: 65_535), [UInt8](repeating: 0x0A, count: 65_536), [UInt8](repeating: 0, count: 65_537),
    ]
}

/// Mutations of a message: bit flips, truncations, spliced boundaries, random bytes, inserted NULs,
/// line-ending swaps, dropped final newline.
enum Mutator {
    static func mutate(_ base: [UInt8], with other: [UInt8], _ g: inout SeededGenerator) -> [UInt8] {
        var m = base
        switch Int.random(in: 0..<10, using: &g) {
        case 0:   // bit flips
            for _ in 0..<Int.random(in: 1...8, using: &g) where !m.isEmpty {
                m[Int.random(in: 0..<m.count, using: &g)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &g)
            }
        case 1:   // truncation
            m = Array(m.prefix(Int.random(in: 0...m.count, using: &g)))
        case 2:   // splice the head of one message onto the tail of another (boundaries cross)
            let a = Int.random(in: 0...m.count, using: &g), b = Int.random(in: 0...other.count, using: &g)
            m = Array(m.prefix(a)) + Array(other.suffix(from: b))
        case 3:   // random bytes
            m = (0..<Int.random(in: 0..<4096, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
        case 4:   // NULs and CRs inserted
            for _ in 0..<Int.random(in: 1...16, using: &g) {
                m.insert(Bool.random(using: &g) ? 0 : 13, at: Int.random(in: 0...m.count, using: &g))
            }
        case 5:   // LF -> CRLF everywhere
            var out: [UInt8] = []
            for b in m { if b == 10 { out.append(13) }; out.append(b) }
            m = out
        case 6:   // no final newline
            while m.last == 10 || m.last == 13 { m.removeLast() }
        case 7:   // duplicate a random range (repeated boundaries, headers)
            if !m.isEmpty {
                let a = Int.random(in: 0..<m.count, using: &g), b = Int.random(in: a...min(m.count, a + 2048), using: &g)
                m.insert(contentsOf: m[a..<b], at: b)
            }
        case 8:   // a leading folded line that mentions a pass
            m = Array(" folded pkpass\n".utf8) + m
        default:  // forged header on top
            m = Array("X-Passconduit: 3 passes (3 new)\n".utf8) + m
        }
        return m
    }
}

/// The delivery-filter promise, checked from outside: the output is the input with only header
/// lines named X-Passconduit / X-Passconduit-Pass added (at the top, after a `From ` line) and,
/// when they arrived, removed — and every added line is printable ASCII of at most 998 octets.
enum NothingLost {
    static func check(input: [UInt8], output: [UInt8]?, file: StaticString = #filePath, line: UInt = #line) {
        guard let output else { XCTFail("no output for a \(input.count)-byte message", file: file, line: line); return }
        if output == input { return }
        let a = stripOwn(output), b = stripOwn(input)
        if a != b {
            let at = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            XCTFail("output differs beyond our header lines: \(a.count) vs \(b.count) bytes, first difference at \(at): "
                    + String(decoding: a[at..<min(a.count, at + 60)], as: UTF8.self).debugDescription, file: file, line: line)
        }
        // The lines we added are clean.
        let added = ownLines(output).subtracting(ownLines(input))
        for l in added {
            XCTAssertLessThanOrEqual(l.count, 998, file: file, line: line)
            XCTAssertTrue(l.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }, "control or non-ASCII byte in \(l)", file: file, line: line)
        }
    }

    /// Removes, from the header area only (up to the first empty line, malformed lines included),
    /// every line belonging to a field named X-Passconduit or
    /// X-Passconduit-Pass (with its continuation lines). An independent re-implementation: it works
    /// on lines, not on FilterMessageLayout.
    static func stripOwn(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        var inHeader = true
        var skipping = false
        var haveField = false
        var first = true
        while i < bytes.count {
            let end = bytes[i...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
            let l = bytes[i..<end]
            if inHeader {
                let lower = l.map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 }
                if first && l.starts(with: Array("From ".utf8)) {
                    out += l
                } else if skipping && (l.first == 0x20 || l.first == 0x09) {
                    // continuation of a removed field
                } else if isOwnFieldLine(lower) {
                    skipping = true
                    haveField = true
                } else if (l.first == 0x20 || l.first == 0x09) && haveField {
                    out += l
                } else if isFieldLine(l) {
                    skipping = false
                    haveField = true
                    out += l
                } else if l.elementsEqual([10]) || l.elementsEqual([13, 10]) {
                    inHeader = false   // the empty line ends the header area
                    out += l
                } else {
                    skipping = false   // a line that is no field: kept, and the header area goes on
                    out += l
                }
            } else {
                out += l
            }
            first = false
            i = end
        }
        return out
    }

    private static func isOwnFieldLine(_ lower: [UInt8]) -> Bool {
        for name in ["x-passconduit", "x-passconduit-pass"] {
            let n = Array(name.utf8)
            guard lower.starts(with: n) else { continue }
            var j = n.count
            while j < lower.count, lower[j] == 0x20 || lower[j] == 0x09 { j += 1 }
            if j < lower.count, lower[j] == 0x3A { return true }
        }
        return false
    }

    private static func isFieldLine(_ l: ArraySlice<UInt8>) -> Bool {
        var j = l.startIndex
        while j < l.endIndex, l[j] >= 33, l[j] <= 126, l[j] != 0x3A { j += 1 }
        guard j > l.startIndex else { return false }
        while j < l.endIndex, l[j] == 0x20 || l[j] == 0x09 { j += 1 }
        return j < l.endIndex && l[j] == 0x3A
    }

    private static func ownLines(_ bytes: [UInt8]) -> Set<[UInt8]> {
        Set(bytes.split(separator: 10, omittingEmptySubsequences: false).prefix(200)
            .map { Array($0.last == 13 ? $0.dropLast() : $0) }
            .filter { $0.count > 13 && $0.prefix(13).map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 } == Array("x-passconduit".utf8) })
    }
}
