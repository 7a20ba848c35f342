import Foundation
import XCTest

/// `export -o` and `icon -o` on real passes: byte-identical output, and failures said in plain words.
final class OutputFileTests: XCTestCase {
    var sandbox: Sandbox!
    let pass = RealPassCardTests.realPass("Kryst0r-Wallet__BoardingPass.pkpass")

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.run("add", ["--yes", pass]).status, 0)
    }

    func testExportReplacesAnExistingFileWithTheOriginalBytes() throws {
        let target = sandbox.dir.appendingPathComponent("ticket.pkpass")
        try Data("old".utf8).write(to: target)
        let run = try sandbox.run("export", ["0fea1571", "-o", target.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try Data(contentsOf: target), try Data(contentsOf: URL(fileURLWithPath: pass)))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.dir.path).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(leftovers, [])
    }

    /// Foundation's words reached the user: "The operation could not be completed. The file
    /// doesn’t exist." and, for a folder, "(NSCocoaErrorDomain error 512.)".
    func testExportIntoAMissingFolderSaysSoPlainly() throws {
        let target = sandbox.dir.appendingPathComponent("no-such-folder/ticket.pkpass").path
        let run = try sandbox.run("export", ["0fea1571", "-o", target])
        XCTAssertEqual(run.status, 73)
        XCTAssertEqual(run.stderr, "passconduit: \(target): cannot write the pass: no such file or directory\n")
    }

    func testIconOntoAFolderSaysItIsAFolder() throws {
        let run = try sandbox.run("icon", ["0fea1571", "-o", sandbox.dir.path])
        XCTAssertEqual(run.status, 73)
        XCTAssertEqual(run.stderr, "passconduit: \(sandbox.dir.path): cannot write the icon: it is a folder\n")
    }
}
