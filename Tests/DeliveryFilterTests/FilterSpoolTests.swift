import Foundation
import XCTest
@testable import DeliveryFilter
import TestRandom

/// The spool: memory, then an unnamed 0600 file; read back exactly.
final class FilterSpoolTests: XCTestCase {
    func testSpoolSpillsToAnUnnamedPrivateFileAndReadsBackExactly() throws {
        var g = SeededGenerator(state: 7)
        let bytes = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &g) }
        let spool = try FilterSpool(bytes: bytes, memoryLimit: 1000)
        XCTAssertTrue(spool.isOnDisk)
        XCTAssertEqual(try spool.contents(maxBytes: 1 << 30), bytes)
        XCTAssertNil(try spool.contents(maxBytes: 299_999))
        XCTAssertEqual(try spool.bytes(in: 299_990..<400_000), Array(bytes[299_990...]))
        var copied: [UInt8] = []
        try spool.copy(5..<299_000) { copied.append(contentsOf: $0) }
        XCTAssertEqual(copied, Array(bytes[5..<299_000]))
    }

    func testPrivateFileIsMode0600AndNameless() throws {
        let fd = try FilterSpool.createPrivateFile(in: NSTemporaryDirectory())
        defer { close(fd) }
        var st = stat()
        XCTAssertEqual(fstat(fd, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        XCTAssertEqual(st.st_nlink, 0)
    }

    func testReadToEndFromAPipeSpoolsEverything() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let payload = [UInt8](repeating: 0x61, count: 3 << 20)
        let writeEnd = fds[1]
        let writer = Thread {
            payload.withUnsafeBytes { b in
                var done = 0
                while done < b.count { let n = write(writeEnd, b.baseAddress! + done, b.count - done); if n <= 0 { break }; done += n }
            }
            close(writeEnd)
        }
        writer.start()
        let spool = FilterSpool(memoryLimit: 1 << 20)
        try spool.readToEnd(from: fds[0], temporaryDirectory: nil)
        close(fds[0])
        XCTAssertEqual(spool.byteCount, payload.count)
        XCTAssertTrue(spool.isOnDisk)
        XCTAssertEqual(try spool.contents(maxBytes: .max), payload)
    }

    /// readToEnd reads straight into memory up to the limit: a message of exactly the limit stays
    /// there, one byte more goes to the file; both read back exactly (sizes around the 256 KB
    /// read size, where the in-memory storage grows, and the empty message).
    func testReadToEndKeepsUpToTheLimitInMemoryAndSpillsTheByteBeyond() throws {
        var g = SeededGenerator(state: 11)
        let limit = 600_000
        for size in [0, 1, 262_143, 262_144, 262_145, limit - 1, limit, limit + 1, 2 * limit] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &g) }
            let path = NSTemporaryDirectory() + "/spool-\(getpid())-\(size)"
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            defer { unlink(path) }
            let fd = open(path, O_RDONLY)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            let spool = FilterSpool(memoryLimit: limit)
            try spool.readToEnd(from: fd, temporaryDirectory: nil)
            XCTAssertEqual(spool.byteCount, size, "size \(size)")
            XCTAssertEqual(spool.isOnDisk, size > limit, "size \(size)")
            XCTAssertEqual(try spool.contents(maxBytes: .max), bytes, "size \(size)")
        }
    }

    /// A pipe delivering a message in small, uneven pieces (as a mail host's pipe does): every
    /// byte in order, in memory below the limit.
    func testReadToEndFromAPipeInSmallPiecesKeepsEveryByteInOrder() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        var g = SeededGenerator(state: 12)
        let payload = (0..<700_001).map { _ in UInt8.random(in: 0...255, using: &g) }
        let writeEnd = fds[1]
        let writer = Thread {
            payload.withUnsafeBytes { b in
                var done = 0, piece = 1
                while done < b.count {
                    let n = write(writeEnd, b.baseAddress! + done, min(piece, b.count - done))
                    if n <= 0 { break }
                    done += n
                    piece = piece % 9_973 + 1_013
                }
            }
            close(writeEnd)
        }
        writer.start()
        let spool = FilterSpool(memoryLimit: 1 << 20)
        try spool.readToEnd(from: fds[0], temporaryDirectory: nil)
        close(fds[0])
        XCTAssertFalse(spool.isOnDisk)
        XCTAssertEqual(try spool.contents(maxBytes: .max), payload)
    }
}
