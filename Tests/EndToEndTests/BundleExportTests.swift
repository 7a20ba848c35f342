import Foundation
import XCTest

/// `export --all` / `export ID… -o FILE.pkpasses` and `add FILE.pkpasses`: a backup that moves a
/// library byte for byte.
final class BundleExportTests: XCTestCase {
    override func setUp() { continueAfterFailure = false }
    override func tearDown() { FilterRun.cleanUp() }

    /// 50 passes → export --all → add into an empty library → the same passes, byte-identical.
    func testFiftyPassLibraryRoundTripsByteIdentical() throws {
        let from = try Sandbox(), to = try Sandbox()
        let passes = try HandOn.forgeMany(edits: (1...50).map { ["serialNumber": "BACKUP-\($0)"] }, in: from.dir)
        let added = try from.run("add", ["--yes"] + passes.map(\.path))
        XCTAssertEqual(added.status, 0, added.stderr)
        let bundle = from.dir.appendingPathComponent("backup.pkpasses")
        let exported = try from.run("export", ["--all", "-o", bundle.path])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue(exported.stderr.contains("exported 50 passes"), exported.stderr)

        // A real zip reader sees 50 stored .pkpass members at the root.
        let names = try HandOn.run("/usr/bin/python3", ["-c", "import zipfile,sys; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", bundle.path])
        let members = names.stdout.split(separator: "\n")
        XCTAssertEqual(members.count, 50)
        XCTAssertTrue(members.allSatisfy { $0.hasSuffix(".pkpass") && !$0.contains("/") })

        let restored = try to.run("add", ["--yes", bundle.path])
        XCTAssertEqual(restored.status, 0, restored.stdout + restored.stderr)
        let before = Set(try from.run("list", ["--json"]).objects.compactMap { $0["sha256"] as? String })
        let after = Set(try to.run("list", ["--json"]).objects.compactMap { $0["sha256"] as? String })
        XCTAssertEqual(before.count, 50)
        XCTAssertEqual(before, after)
        // Every pass exported from the restored library is byte-identical to its original file:
        // one by one for a few, and all 50 through a second bundle read by Python's zipfile.
        for n in [0, 24, 49] {
            let out = to.dir.appendingPathComponent("out-\(n).pkpass")
            let r = try to.run("export", ["pass.org.passconduit.event/BACKUP-\(n + 1)", "-o", out.path])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: passes[n]), "BACKUP-\(n + 1) changed on the way")
        }
        let bundle2 = to.dir.appendingPathComponent("again.pkpasses")
        XCTAssertEqual(try to.run("export", ["--all", "-o", bundle2.path]).status, 0)
        let compare = """
        import hashlib, json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        members = sorted(hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist())
        originals = sorted(hashlib.sha256(open(p, "rb").read()).hexdigest() for p in json.loads(sys.argv[2]))
        print("same" if members == originals else "different: %d members, %d originals" % (len(members), len(originals)))
        """
        let list = String(decoding: try JSONSerialization.data(withJSONObject: passes.map(\.path)), as: UTF8.self)
        XCTAssertEqual(try HandOn.run("/usr/bin/python3", ["-c", compare, bundle2.path, list]).stdout, "same\n")
        // Restoring again: every pass is already there and stays.
        let again = try to.run("add", ["--yes", bundle.path])
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(again.stdout.components(separatedBy: "Already in your library.").count - 1, 50)
    }

    /// Named passes make a bundle of just those; a newer version in a bundle updates the library.
    /// A backup of 70 passes (more than the 64 the delivery filter reads from one bundle) is
    /// restored whole by `add`: it restored nothing, saying only "too large to open safely".
    /// A limit that does stop a bundle names itself and the setting that raises it.
    func testABackupOfSeventyPassesRestoresAndLimitsNameTheirSetting() throws {
        let from = try Sandbox(), to = try Sandbox()
        let passes = try HandOn.forgeMany(edits: (1...70).map { ["serialNumber": "MANY-\($0)"] }, in: from.dir)
        XCTAssertEqual(try from.run("add", ["--yes"] + passes.map(\.path)).status, 0)
        let bundle = from.dir.appendingPathComponent("backup.pkpasses")
        let exported = try from.run("export", ["--all", "-o", bundle.path])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual(exported.stderr, "passconduit: exported 70 passes to \(bundle.path).\n", "no warning: add reads it whole")
        let restored = try to.run("add", ["--yes", bundle.path])
        XCTAssertEqual(restored.status, 0, restored.stdout + restored.stderr)
        XCTAssertEqual(try to.run("list", ["--json"]).objects.count, 70)

        // scan (what the filter does with a stranger's bundle) stops at max-bundle-members, and says so.
        let scan = try to.run("scan", [bundle.path])
        XCTAssertTrue((scan.stdout + scan.stderr).contains("max-bundle-members in the config's [limits] raises it"), scan.stdout + scan.stderr)
        // A configured limit that stops add names its setting too.
        let config = to.dir.appendingPathComponent("small.toml")
        try "[limits]\nmax-pass-entries = 10\n".write(to: config, atomically: true, encoding: .utf8)
        let small = try Sandbox()
        let refused = try small.run("add", ["--config", config.path, "--yes", bundle.path])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue((refused.stdout + refused.stderr).contains("over the limit of 10: max-pass-entries in the config's [limits] raises it"),
                      refused.stdout + refused.stderr)
    }

    func testNamedPassesMakeABundleAndANewerOneUpdates() throws {
        let a = try Sandbox(), b = try Sandbox()
        let v1 = a.dir.appendingPathComponent("v1.pkpass"), v2 = a.dir.appendingPathComponent("v2.pkpass")
        try HandOn.forge(set: ["serialNumber": "MOVE-1", "relevantDate": "2026-06-12T19:00Z"], to: v1)
        sleep(1)
        try HandOn.forge(set: ["serialNumber": "MOVE-1", "relevantDate": "2026-06-12T21:00Z"], to: v2)
        XCTAssertEqual(try b.run("add", ["--yes", v1.path, Run.sample("passes/coupon.pkpass")]).status, 0)
        XCTAssertEqual(try a.run("add", ["--yes", v2.path, Run.sample("passes/store-card.pkpass"), Run.sample("passes/generic.pkpass")]).status, 0)
        let bundle = a.dir.appendingPathComponent("trip.pkpasses")
        let r = try a.run("export", ["pass.org.passconduit.event/MOVE-1", try sha256(ofSample: "passes/store-card.pkpass").prefix(12).description,
                                     "-o", bundle.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let restored = try b.run("add", ["--yes", bundle.path])
        XCTAssertEqual(restored.status, 0, restored.stdout)
        XCTAssertTrue(restored.stdout.contains("Updated"), restored.stdout)
        let stored = Set(try b.run("list", ["--json"]).objects.compactMap { $0["sha256"] as? String })
        XCTAssertEqual(stored.count, 3, "coupon, the updated event ticket, the store card; not generic")
        XCTAssertTrue(stored.contains(try sha256(ofSample: "passes/store-card.pkpass")))
        let out = b.dir.appendingPathComponent("moved.pkpass")
        XCTAssertEqual(try b.run("export", ["pass.org.passconduit.event/MOVE-1", "-o", out.path]).status, 0)
        XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: v2))
    }

    func testExportNeedsAnIDOrAll() throws {
        let sandbox = try Sandbox()
        let r = try sandbox.run("export", [])
        XCTAssertEqual(r.status, 64)
        let both = try sandbox.run("export", ["--all", "abc"])
        XCTAssertEqual(both.status, 64)
        let empty = try sandbox.run("export", ["--all", "-o", sandbox.dir.appendingPathComponent("x.pkpasses").path])
        // No library at all: said so (66), and none is created by a command that only reads.
        XCTAssertEqual(empty.status, 66)
        XCTAssertTrue(empty.stderr.contains("there is no library here"), empty.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.library))
    }
}
