import XCTest
@testable import Conduit

/// Nothing lost: every corpus message and >= 10 000 mutations go through the same DeliveryFilter
/// code path as `passconduit filter`; the output is the input plus/minus only our header lines.
final class FilterNothingLostTests: XCTestCase {
    /// A scanner that "finds" a pass whenever the message mentions pkpass, so headers are really
    /// inserted into many mutated messages (hostile org names included).
    struct MentionScanner: FilterPassScanning {
        func scan(message: [UInt8]) throws -> [FilterPassReport] {
            let needle: [UInt8] = Array("pkpass".utf8)
            var found = 0
            message.withUnsafeBufferPointer { m in
                var i = 0
                while i + needle.count <= m.count, found < 3 {
                    var j = 0
                    while j < needle.count, m[i + j] | 0x20 == needle[j] { j += 1 }
                    if j == needle.count { found += 1; i += j } else { i += 1 }
                }
            }
            return (0..<found).map { FilterPassReport(status: "valid", library: "new", action: .offered, passTypeIdentifier: "pass.t",
                                                       serialNumber: "\($0)", organizationName: "Evil\r\nBcc: x \u{0} \u{e9}") }
        }
    }

    private func filter(_ m: [UInt8]) -> [UInt8]? {
        DeliveryFilter(options: FilterOptions()).filter(m, runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 5)) { MentionScanner() }.output
    }

    func testEveryCorpusMessageComesThroughIntactAndIdempotent() throws {
        let files = FilterCorpus.indexedMessages()
        XCTAssertGreaterThan(files.count, 900, "the MIME corpus at \(FilterCorpus.mimeCorpus.path) is missing")
        for url in files {
            var m = try [UInt8](Data(contentsOf: url))
            // The corpus has no pass (MANIFEST.md); mentioning one makes the scanner report some,
            // so header insertion and forged-header removal run on every real header block.
            for variant in 0..<2 {
                if variant == 1 { m = Array("X-Passconduit: forged\nX-Mention: pkpass\n".utf8) + m }
                let out = filter(m)
                NothingLost.check(input: m, output: out)
                XCTAssertTrue(out.flatMap(filter) == out, "not idempotent: \(url.lastPathComponent)")
            }
        }
    }

    func testTenThousandMutatedMessagesComeThroughIntact() throws {
        let files = FilterCorpus.indexedMessages().filter {
            ((try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) < 200_000
        }
        XCTAssertGreaterThan(files.count, 100)
        var bases = FilterCorpus.edgeCases
        var g = SeededGenerator(state: 0x5EED)
        for _ in 0..<200 { bases.append(try [UInt8](Data(contentsOf: files[Int.random(in: 0..<files.count, using: &g)]))) }
        var changed = 0
        for n in 0..<10_000 {
            let base = bases[n % bases.count]
            let other = bases[Int.random(in: 0..<bases.count, using: &g)]
            let m = Mutator.mutate(base, with: other, &g)
            let out = filter(m)
            NothingLost.check(input: m, output: out)
            if out != m { changed += 1 }
            if n % 5 == 0 { XCTAssertTrue(out.flatMap(filter) == out, "not idempotent: mutation \(n)") }
        }
        for m in FilterCorpus.edgeCases { NothingLost.check(input: m, output: filter(m)) }
        XCTAssertGreaterThan(changed, 100, "too few mutated messages got headers to exercise insertion")
    }
}
