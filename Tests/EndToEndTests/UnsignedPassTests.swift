import Foundation
import PostgresTestKit
import XCTest

/// Issue 26 item 15: unsigned passes (KDE Itinerary's test passes, edutap's, a converter's) are kept
/// only with an explicit `add --allow-unsigned`, stored as "unsigned" on either backend, shown with the
/// red "not verified" band, and never offered by the delivery filter. Real unsigned passes from the
/// corpus (Tests/WalletPassTests/Fixtures/pkpass-real, origins in its MANIFEST.md).
final class UnsignedPassTests: XCTestCase {
    static func real(_ name: String) -> String {
        Run.root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real/" + name).path
    }

    let edutap = real("edutap__unsigned-1234.pkpass")          // sha256 89de3238…
    let kde = real("itinerary__boardingpass-v1.pkpass")        // expired in 2017
    let noSerial = real("kitinerary__airbaltic.pkpass")        // pass.json without a serialNumber

    func testUnsignedPassesAreKeptOnlyWhenAllowedAndSaySoOnEitherBackend() throws {
        let sandbox = try Sandbox()
        let server = try PostgresTestServer.shared
        let database = try server.database()
        let backends: [(String, [String])] = [("sqlite", ["--library", sandbox.library]),
                                              ("postgresql", ["--library", server.location(database: database), "--user", "alice"])]
        for (name, backend) in backends {
            func run(_ command: String, _ arguments: [String]) throws -> Run {
                try sandbox.run(command, backend + arguments, common: false)
            }
            // Without the flag: refused with the reason and the way out; nothing stored.
            let refused = try run("add", ["--yes", edutap])
            XCTAssertEqual(refused.status, 65, "\(name): \(refused.stdout)\(refused.stderr)")
            XCTAssertTrue(refused.stdout.contains("isn't signed") && refused.stdout.contains("--allow-unsigned"), "\(name): \(refused.stdout)")
            XCTAssertEqual(try run("list", ["--json"]).objects.count, 0, name)

            // With it: kept as "unsigned"; a pass without the identity every pass needs still is not.
            let kept = try run("add", ["--yes", "--allow-unsigned", edutap, kde])
            XCTAssertEqual(kept.status, 0, "\(name): \(kept.stdout)\(kept.stderr)")
            let noIdentity = try run("add", ["--yes", "--allow-unsigned", noSerial])
            XCTAssertEqual(noIdentity.status, 65, name)
            XCTAssertTrue(noIdentity.stdout.contains("no passTypeIdentifier or serialNumber"), "\(name): \(noIdentity.stdout)\(noIdentity.stderr)")

            let listed = try run("list", ["--json"])
            let statuses = Dictionary(listed.objects.compactMap { o in (o["sha256"] as? String).map { ($0, o["status"] as? String) } },
                                      uniquingKeysWith: { a, _ in a })
            XCTAssertEqual(statuses.count, 2, "\(name): \(listed.stdout)\(listed.stderr)")
            XCTAssertTrue(statuses.values.allSatisfy { $0 == "unsigned" }, "\(name): \(statuses)")
            let text = try run("list", []).stdout
            XCTAssertTrue(text.contains("[unsigned]") && text.contains("[expired, unsigned]"), "\(name): \(text)")

            // show: the stored and today's verdict agree ("unsigned"), no "today: invalid" second opinion.
            let show = try run("show", ["89de"])
            XCTAssertTrue(show.stdout.contains("Status      unsigned"), "\(name): \(show.stdout)")
            XCTAssertFalse(show.stdout.contains("today:"), "\(name): \(show.stdout)")
            let json = try XCTUnwrap(try run("show", ["--json", "89de"]).objects.first)
            let verification = try XCTUnwrap(json["verification"] as? [String: Any])
            XCTAssertEqual(verification["agrees"] as? Bool, true, name)

            // The card carries the red band: a row across the card that is mostly (200, 40, 40).
            let png = sandbox.dir.appendingPathComponent("\(name).png").path
            XCTAssertEqual(try run("render", ["--format", "png", "-o", png, "89de"]).status, 0, name)
            let red = try RenderKit.python(["-c", """
                import sys
                from PIL import Image
                im = Image.open(sys.argv[1]).convert("RGB")
                w, h = im.size
                near = lambda p: abs(p[0] - 199) <= 3 and abs(p[1] - 41) <= 3 and abs(p[2] - 41) <= 3
                print(sum(1 for y in range(h) if sum(1 for x in range(0, w, 4) if near(im.getpixel((x, y)))) > w // 16))
                """, png])
            XCTAssertEqual(red.status, 0, red.stderr)
            XCTAssertGreaterThan(Int(red.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 10, "\(name): no red band")
        }
    }

    /// The delivery filter never offers an unsigned pass: the header says invalid, no offer is staged.
    func testTheFilterNeverOffersAnUnsignedPass() throws {
        let sandbox = try Sandbox()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: edutap))
        let message = """
            From: issuer@example.org\r
            To: alice@example.org\r
            Subject: your card\r
            MIME-Version: 1.0\r
            Content-Type: multipart/mixed; boundary="b"\r
            \r
            --b\r
            Content-Type: text/plain\r
            \r
            Your card.\r
            --b\r
            Content-Type: application/vnd.apple.pkpass; name="card.pkpass"\r
            Content-Disposition: attachment; filename="card.pkpass"\r
            Content-Transfer-Encoding: base64\r
            \r
            \(bytes.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed]))\r
            --b--\r

            """
        let filtered = try sandbox.run("filter", [], stdin: Data(message.utf8))
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        XCTAssertTrue(filtered.stdout.contains("X-Passconduit:"), filtered.stdout.prefix(600).description)
        XCTAssertTrue(filtered.stdout.contains("invalid"), filtered.stdout.prefix(600).description)
        XCTAssertFalse(filtered.stdout.contains("offered"), filtered.stdout.prefix(600).description)
        let offers = try sandbox.run("offers", ["--json"])
        XCTAssertEqual(offers.objects.count, 0, offers.stdout + offers.stderr)
    }
}
