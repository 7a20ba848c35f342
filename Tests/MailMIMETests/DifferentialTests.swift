import XCTest
@testable import MailMIME

/// Runs differential/differential.py: every message of the MIME corpus parsed by MailMIME (through
/// `MIMEBench dump`) and by Python's `email` (policy.default), compared part by part; any difference
/// not in differential/allowlist.json (with its reason) fails the test. The corpus is
/// $PASSCONDUIT_MIME_CORPUS, else the checkout's copy in Tests/Corpus/mime.
final class DifferentialTests: XCTestCase {
    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testEveryCorpusDifferenceFromPythonEmailIsExplained() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let script = here.appendingPathComponent("differential/differential.py").path
        // The dump tool is built beside the test bundle (swift build --build-tests builds every product).
        let buildDir = Bundle.module.bundleURL.deletingLastPathComponent()
        let dumpTool = buildDir.appendingPathComponent("MIMEBench").path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: dumpTool), "build MIMEBench first: \(dumpTool)")
        let result = try run("/usr/bin/env", ["python3", script, "--dump-tool", dumpTool])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("0 unexplained"), result.output)
        print(result.output.components(separatedBy: "\n").first ?? "")
    }
}
