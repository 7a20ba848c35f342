import Foundation
import XCTest
@testable import Barcodes
@testable import WalletPass

enum BarcodeFixtures {
    /// The repository root (…/Tests/BarcodesTests/<this file> -> …).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samples = root.appendingPathComponent("Samples/barcode-passes")
    /// The real passes: WalletPassTests keeps a copy of every file of ../shared/corpus/pkpass-real
    /// (origins in ../shared/corpus/pkpass-real/MANIFEST.md and that folder's README).
    static let corpus = root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real")
    static let trust: TrustStore = try! TrustStore.load(directories: [
        root.appendingPathComponent("Config/trust").path, root.appendingPathComponent("Samples/ca/trust").path,
    ])

    static func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }

    /// pass.json of a .pkpass, parsed the lenient way the opener does (no signature needed).
    static func document(_ url: URL) throws -> PassDocument {
        let archive = try PassArchive.open(try bytes(url), limits: .default).get()
        let json = try XCTUnwrap(archive["pass.json"], url.lastPathComponent)
        return try PassDocument.parse(json, maxDepth: 64).get()
    }

    struct Expectation {
        var file: String
        var format: String      // "QR" … or "-"
        var expected: String    // hex, "none" or "error:CODE"
        var what: String
    }

    /// Samples/barcode-passes/expected.tsv, written by Samples/make-barcode-passes.sh.
    static func expectations() throws -> [Expectation] {
        let text = try String(contentsOf: samples.appendingPathComponent("expected.tsv"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Expectation(file: c[0], format: c[1], expected: c[2], what: c.count > 3 ? c[3] : "")
        }
    }
}

extension BarcodeFormat {
    /// The format named the short way the samples' expected.tsv does ("QR", "Code128").
    init?(short: String) {
        self.init(passKitName: "PKBarcodeFormat" + short)
    }
}
