import Foundation
import XCTest
@testable import MailMIME

/// Regular files are read through a mapping: the messages are exactly those the streaming reader
/// finds, the pages behind the reader are given back, and what cannot be mapped is streamed.
final class MappedMailboxTests: XCTestCase {
    func withFile<R>(_ bytes: [UInt8], _ body: (Int32) throws -> R) throws -> R {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let fd = open(url.path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        return try body(fd)
    }

    func streamed(_ bytes: [UInt8], limits: MIMELimits, chunkSize: Int) throws -> [MailboxMessage] {
        try withFile(bytes) { fd in
            var reader = MboxReader(fileDescriptor: fd, limits: limits, chunkSize: chunkSize)
            var out: [MailboxMessage] = []
            while let m = try reader.next() { out.append(m) }
            return out
        }
    }

    func mapped(_ bytes: [UInt8], skip: Int = 0, limits: MIMELimits) throws -> [MailboxMessage] {
        try withFile(bytes) { fd in
            var reader = try XCTUnwrap(MboxReader(mappedFile: fd, skip: skip, limits: limits))
            XCTAssertTrue(reader.isMapped)
            var out: [MailboxMessage] = []
            while let m = try reader.next() { out.append(m) }
            return out
        }
    }

    /// Every mbox fixture, and the MIME corpus's mbox files (Tests/Corpus/mime).
    func mboxes() throws -> [(String, [UInt8])] {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/mbox")
        var out: [(String, [UInt8])] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted() {
            out.append((name, [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))))
        }
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Corpus/mime")
        if let index = try? String(contentsOf: corpus.appendingPathComponent("index.tsv"), encoding: .utf8) {
            for row in index.split(separator: "\n") {
                let columns = row.split(separator: "\t")
                guard columns.count >= 3, columns[2] == "mbox" else { continue }
                out.append((String(columns[0]), [UInt8](try Data(contentsOf: corpus.appendingPathComponent(String(columns[0]))))))
            }
        }
        return out
    }

    func testMappedFilesSplitExactlyLikeStreams() throws {
        var limits = MIMELimits.default
        for (name, bytes) in try mboxes() where !bytes.isEmpty {
            for maxBytes in [MIMELimits.default.maxMessageBytes, 300] {
                limits.maxMessageBytes = maxBytes
                let expected = try streamed(bytes, limits: limits, chunkSize: 64)
                let got = try mapped(bytes, limits: limits)
                XCTAssertEqual(got.count, expected.count, "\(name), max \(maxBytes)")
                let differing = Array(zip(got, expected)).firstIndex { $0.bytes != $1.bytes }
                XCTAssertNil(differing, "\(name), max \(maxBytes): message \((differing ?? 0) + 1) differs")
                XCTAssertEqual(got.map(\.byteCount), expected.map(\.byteCount), "\(name), max \(maxBytes)")
                XCTAssertEqual(got.map(\.oversize), expected.map(\.oversize), "\(name), max \(maxBytes)")
            }
        }
    }

    func testSkippedNoiseIsNotPartOfTheFirstMessage() throws {
        let text = Array("\n\nFrom a@example.org Sat Jan  1 00:00:00 2000\nSubject: one\n\nbody\n".utf8)
        let got = try mapped(text, skip: 2, limits: .default)
        XCTAssertEqual(got.map { String(decoding: $0.bytes, as: UTF8.self) }, ["Subject: one\n\nbody\n"])
    }

    func testOversizeSingleMessageIsFlaggedNotCopied() throws {
        var limits = MIMELimits.default
        limits.maxMessageBytes = 100
        let bytes = Array("Subject: big\n\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 1000)
        try withFile(bytes) { fd in
            var reader = try XCTUnwrap(SingleMessageReader(mappedFile: fd, limits: limits))
            let m = try XCTUnwrap(try reader.next())
            XCTAssertTrue(m.oversize)
            XCTAssertEqual(m.byteCount, bytes.count)
            XCTAssertEqual(m.bytes, [])
            XCTAssertNil(try reader.next())
        }
    }

    func testPipesAndEmptyFilesAreNotMapped() throws {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        XCTAssertNil(MboxReader(mappedFile: fds[0]))
        XCTAssertNil(try withFile([]) { MboxReader(mappedFile: $0) })
    }

    /// Resident memory of this process, from /proc/self/status.
    func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kb = try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kb * 1024
    }

    func testPagesBehindTheReaderAreGivenBack() throws {
        // 96 MB of messages: mapped whole, but only a window of it may stay resident.
        let fromLine = Array("From a@example.org Sat Jan  1 00:00:00 2000\n".utf8)
        var message = fromLine + Array("Subject: filler\n\n".utf8)
        message += Array(repeating: UInt8(ascii: "x"), count: 1 << 20) + [0x0A, 0x0A]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96 * message.count)
        for _ in 0..<96 { bytes += message }
        try withFile(bytes) { fd in
            bytes = []   // not counted below
            let before = try residentBytes()
            var reader = try XCTUnwrap(MboxReader(mappedFile: fd))
            var peak = 0, count = 0
            while let m = try reader.next() {
                count += 1
                XCTAssertEqual(m.byteCount, message.count - fromLine.count - 1)   // less the blank line
                peak = max(peak, try residentBytes() - before)
            }
            XCTAssertEqual(count, 96)
            XCTAssertLessThan(peak, 40 << 20, "resident memory grew by \(peak >> 20) MB reading a 96 MB mbox")
        }
    }

    /// A message of a mapped mbox is a range of the mapping, copied out by whoever scans it
    /// (issue 17): it still reads right after the reader is gone, the descriptor closed and the
    /// file removed, and when the pages under it were given back behind the reader long ago.
    func testMessagesAreRangesOfTheMappingThatOutliveTheReader() throws {
        let fromLine = Array("From a@example.org Sat Jan  1 00:00:00 2000\n".utf8)
        var expected: [[UInt8]] = []
        var bytes: [UInt8] = []
        for k in 0..<64 {
            // 512 KB each, 32 MB in all: far more than the distance pages are kept behind.
            var message = Array("Subject: \(k)\n\n".utf8)
            message += Array(repeating: UInt8(ascii: "a") + UInt8(k % 26), count: 512 << 10)
            message += Array("\n>From quoted\n".utf8)
            expected.append(Array(message.dropLast(14)) + Array("\nFrom quoted\n".utf8))
            bytes += fromLine + message + [0x0A]
        }
        XCTAssertGreaterThan(bytes.count, 2 * ChunkedInput.releaseDistance)
        let got = try mapped(bytes, limits: .default)
        XCTAssertEqual(got.count, 64)
        XCTAssertTrue(got.allSatisfy(\.isInMapping), "messages of a mapped mbox are copied by the reader")
        for (k, m) in got.enumerated() {
            XCTAssertEqual(m.bytes, expected[k], "message \(k + 1)")
            XCTAssertEqual(m.byteCount, expected[k].count + 1, "message \(k + 1)")  // one '>' un-quoted
        }
        // The streaming reader copies: its buffer moves.
        XCTAssertFalse(try streamed(Array(bytes.prefix(2 << 20)), limits: .default, chunkSize: 1 << 16).contains(where: \.isInMapping))
    }
}
