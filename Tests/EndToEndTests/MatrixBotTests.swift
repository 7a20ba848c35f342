import Foundation
import XCTest

/// The Matrix bot (issue 42) against a real homeserver: Synapse from PyPI (script/setup.d/60-matrix.sh),
/// started on loopback with SQLite in a temporary folder, three users (alice, bob and the bot), and
/// Bots/matrix/passconduit-matrix — the program the package installs — calling the built passconduit.
/// One broad conversation (matrix/roundtrip.py plays the people with matrix-nio): a pass under the
/// four labels chat gives it, every sample pass, a bundle, a zip and a saved message in a two-member
/// room; the card without its barcode in a group room; an encrypted direct message whose card's
/// barcode decodes to the pass's exact message and whose re-labelled file is the sent bytes; add,
/// list, show, help; and the reply latency of 20 passes.
final class MatrixBotTests: XCTestCase {
    func testPassesSentInPlainGroupAndEncryptedRoomsAreCheckedAnsweredAndFiled() throws {
        let python = Run.root.appendingPathComponent(".build-peers/matrix/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("Synapse and matrix-nio are missing: run script/setup.d/60-matrix.sh")
            return
        }
        let sandbox = try Sandbox()
        let r = try HandOn.run(python, [Run.root.appendingPathComponent("Tests/EndToEndTests/matrix/roundtrip.py").path,
                                        sandbox.dir.appendingPathComponent("matrix").path, Binary.url.path,
                                        Run.root.appendingPathComponent("Bots/matrix/passconduit-matrix").path,
                                        Run.root.appendingPathComponent("Samples").path],
                               environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.dir.path, "LANG": "C.UTF-8", "TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        let failures = report["failures"] as? [String] ?? ["no report"]
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
        let figures = report["figures"] as? [String: Any] ?? [:]
        XCTAssertGreaterThanOrEqual(figures["samplesChecked"] as? Int ?? 0, 40, "\(figures)")
        // The figures of the run, for the notes (reply latency: file event to the first reply).
        print("matrix bot figures: \(figures)")
    }
}
