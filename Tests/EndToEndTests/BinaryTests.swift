import XCTest
import Foundation

/// Locates the built `passconduit` binary next to the test bundle, as `swift test` lays it out.
enum Binary {
    static var url: URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("passconduit")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/passconduit")
    }
}

final class BinaryTests: XCTestCase {
    func testVersionRuns() throws {
        let p = Process()
        p.executableURL = Binary.url
        p.arguments = ["--version"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("0."), text)
    }
}
