import Foundation
import XCTest
@testable import MailMIME

/// The TNEF reader against Debian's `tnef` (the reference): on the 16 real `winmail.dat` blobs of
/// MimeKit's test data (Fixtures/tnef, see Fixtures/README.md) it finds the attachments `tnef`
/// extracts, with the same names and bytes; on broken and cut streams it stops with a reason.
final class TNEFReaderTests: XCTestCase {
    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/tnef")
    }

    static func corpus() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: fixtures, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "tnef" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// What `tnef` extracts: file name -> bytes, and its exit status.
    func extractWithTnef(_ file: URL) throws -> (status: Int32, files: [String: [UInt8]]) {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: "/usr/bin/tnef"), "tnef is not installed (Debian package tnef; script/bootstrap installs it)")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pc-tnef-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: out) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/tnef")
        p.arguments = ["--number-backups", "-C", out.path, "-f", file.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: out.path) {
            files[name] = try [UInt8](Data(contentsOf: out.appendingPathComponent(name)))
        }
        return (p.terminationStatus, files)
    }

    func testEveryCorpusStreamGivesTheAttachmentsTnefExtracts() throws {
        let files = try Self.corpus()
        XCTAssertEqual(files.count, 16, "Fixtures/tnef lost its streams")
        var compared = 0
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: file))
            let ours = TNEFReader.read(bytes)
            let reference = try extractWithTnef(file)
            guard reference.status == 0 else {
                // tnef gives up (panic.tnef trips an assertion, garbage-at-end.tnef is refused):
                // ours must still end, and say why when it stopped early.
                continue
            }
            // tnef names a nameless attachment itself and keeps one copy per name; compare by bytes,
            // and by name wherever the stream gives one.
            // (Byte arrays are compared with ==, never printed: a failure would dump megabytes.)
            // tnef keeps the 16-byte interface id in front of an OLE object attachment (PtypObject);
            // ours is the object itself, as [MS-OXTNEF] §2.1.3.4 lays it out.
            let theirs = Set(reference.files.values.map { Self.isObject($0) ? Array($0.dropFirst(16)) : $0 })
            let found = Set(ours.attachments.compactMap(\.data))
            XCTAssertTrue(found == theirs, "\(file.lastPathComponent): ours \(found.map(\.count).sorted()) bytes, tnef's \(theirs.map(\.count).sorted())")
            let names = ours.attachments.compactMap(\.name)
            for attachment in ours.attachments {
                // tnef renames the second of two equal names ("Untitled Attachment.1").
                guard let name = attachment.name, let data = attachment.data, names.filter({ $0 == name }).count == 1 else { continue }
                XCTAssertTrue(reference.files[name].map { Self.isObject($0) ? Array($0.dropFirst(16)) : $0 } == data, "\(file.lastPathComponent): \(name) differs from what tnef extracts")
            }
            compared += ours.attachments.count
        }
        XCTAssertGreaterThan(compared, 15, "too few attachments compared")
    }

    func testLongFileNameWinsOverTheShortTitle() throws {
        let ours = TNEFReader.read(try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("unicode-mapi-attr-name.tnef"))))
        XCTAssertEqual(ours.attachments.map(\.name), ["spaconsole2.cfg", "image001.png", "image002.png", "image003.png"])
        XCTAssertNil(ours.problem)
    }

    /// Every cut of a real stream ends cleanly: what was read before the cut, and a reason.
    func testEveryPrefixEndsCleanlyWithAReason() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("two-files.tnef")))
        let whole = TNEFReader.read(bytes)
        XCTAssertNil(whole.problem)
        XCTAssertEqual(whole.attachments.count, 2)
        // Where attributes end: a cut exactly there is a shorter stream, complete in itself
        // (TNEF has no end marker); a cut anywhere else must be reported.
        var boundaries: Set<Int> = [6]
        var at = 6
        while at + 9 <= bytes.count {
            let length = Int(bytes[at + 5]) | Int(bytes[at + 6]) << 8 | Int(bytes[at + 7]) << 16 | Int(bytes[at + 8]) << 24
            at += 1 + 4 + 4 + length + 2
            boundaries.insert(at)
        }
        XCTAssertTrue(boundaries.contains(bytes.count))
        for end in 0..<bytes.count {
            let cut = TNEFReader.read(Array(bytes[..<end]))
            XCTAssertLessThanOrEqual(cut.attachments.count, 2)
            if !boundaries.contains(end) { XCTAssertNotNil(cut.problem, "cut at \(end) read as complete") }
        }
    }

    func testHostileLengthsAndCountsAreRefusedQuickly() throws {
        var stream: [UInt8] = TNEFReader.signature + [0, 0]
        // An attachment attribute declaring 4 GB.
        stream += [2] + le32(0x0006_800F) + le32(0xFFFF_FFF0) + [1, 2, 3]
        XCTAssertEqual(TNEFReader.read(stream).problem?.contains("more than the stream holds"), true)
        // MAPI properties declaring 2^32 - 1 of them.
        let props = le32(0xFFFF_FFFF)
        var mapi: [UInt8] = TNEFReader.signature + [0, 0]
        mapi += [2] + le32(0x0006_9002) + le32(0) + [0, 0]
        mapi += [2] + le32(0x0006_9005) + le32(UInt32(props.count)) + props + [0, 0]
        XCTAssertEqual(TNEFReader.read(mapi).problem?.contains("MAPI properties"), true)
        // Attribute count limit.
        var many: [UInt8] = TNEFReader.signature + [0, 0]
        for _ in 0..<20 { many += [1] + le32(0x0008_9006) + le32(0) + [0, 0] }
        let limited = TNEFReader.read(many, limits: TNEFLimits(maxAttributes: 10, maxAttachments: 5, maxTotalBytes: 1000, maxProperties: 10))
        XCTAssertEqual(limited.problem, "has more than 10 attributes; the rest was not read")
        XCTAssertEqual(TNEFReader.read(Array("not tnef".utf8)).problem, "not a TNEF stream (no 0x223E9F78 signature)")
    }

    /// An OLE object as tnef writes it: IID_IStorage (0000000B-0000-0000-C000-000000000046),
    /// then a compound file (D0 CF 11 E0).
    static func isObject(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x0B, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0x46, 0xD0, 0xCF, 0x11, 0xE0])
    }

    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
}
