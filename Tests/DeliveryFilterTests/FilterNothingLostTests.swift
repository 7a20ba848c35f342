import PassStore
import PassStoreSQLite
import XCTest
@testable import DeliveryFilter
import TestRandom

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
            return (0..<found).map { FilterPassReport(status: .valid, library: .new, action: .offered, passTypeIdentifier: "pass.t",
                                                       serialNumber: "\($0)", organizationName: "Evil\r\nBcc: x \u{0} \u{e9}") }
        }
    }

    var libraryDirectory: URL!

    override func setUp() {
        libraryDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("pc-nothing-lost-\(UUID().uuidString)")
    }

    override func tearDown() { try? FileManager.default.removeItem(at: libraryDirectory) }

    /// The real scanner (PassScanner, the sample CA, a private library) as `passconduit filter` uses it.
    private var realOptions: FilterOptions {
        var o = FilterOptions()
        o.libraryPath = libraryDirectory.appendingPathComponent("library.sqlite").path
        o.trustDirectories = [FilterCorpus.repositoryRoot.appendingPathComponent("Samples/ca/trust").path]
        return o
    }

    private func filter(_ m: [UInt8]) -> [UInt8]? { filterWithPlan(m).output }

    private func filterWithPlan(_ m: [UInt8]) -> (output: [UInt8]?, plan: FilterPlan) {
        let o = realOptions
        return DeliveryFilter(options: o).filter(m, runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 5)) {
            FilterScanner(options: o, environment: [:], openLibrary: { try PassLibrary(path: $0, options: $1) })
        }
    }

    private func filterMentions(_ m: [UInt8]) -> [UInt8]? {
        DeliveryFilter(options: FilterOptions()).filter(m, runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 5)) { MentionScanner() }.output
    }

    static var sampleMessages: [[UInt8]] {
        let dir = FilterCorpus.repositoryRoot.appendingPathComponent("Samples/messages")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".eml") }.sorted()
        return names.compactMap { try? [UInt8](Data(contentsOf: dir.appendingPathComponent($0))) }
    }

    func testEveryCorpusMessageComesThroughIntactAndIdempotent() throws {
        let files = FilterCorpus.indexedMessages()
        XCTAssertGreaterThan(files.count, 900, "the MIME corpus at \(FilterCorpus.mimeCorpus.path) is missing")
        for url in files {
            var m = try [UInt8](Data(contentsOf: url))
            // The corpus has no pass (MANIFEST.md); mentioning one makes the scanner report some,
            // so header insertion and forged-header removal run on every real header block.
            let out = filter(m)
            NothingLost.check(input: m, output: out)
            XCTAssertTrue(out.flatMap(filter) == out, "not idempotent: \(url.lastPathComponent)")
            // With a forged header and a scanner that reports passes, insertion and removal run
            // on every real header block of the corpus too.
            m = Array("X-Passconduit: forged\nX-Mention: pkpass\n".utf8) + m
            let mentioned = filterMentions(m)
            NothingLost.check(input: m, output: mentioned)
            XCTAssertTrue(mentioned.flatMap(filterMentions) == mentioned, "not idempotent: \(url.lastPathComponent)")
        }
    }

    func testTenThousandMutatedMessagesComeThroughIntact() throws {
        let files = FilterCorpus.indexedMessages().filter {
            ((try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) < 200_000
        }
        // A missing corpus fails this test, not the whole test process (random(in:) of an empty range traps).
        guard files.count > 100 else { return XCTFail("the MIME corpus at \(FilterCorpus.mimeCorpus.path) is missing") }
        let samples = Self.sampleMessages
        XCTAssertGreaterThan(samples.count, 10, "Samples/messages is missing")
        var bases = FilterCorpus.edgeCases + samples + samples   // pass-bearing mail twice as often
        var g = SeededGenerator(state: 0x5EED)
        for _ in 0..<150 { bases.append(try [UInt8](Data(contentsOf: files[Int.random(in: 0..<files.count, using: &g)]))) }
        var changed = 0, withPasses = 0, withValidPasses = 0
        for n in 0..<10_000 {
            let base = bases[n % bases.count]
            let other = bases[Int.random(in: 0..<bases.count, using: &g)]
            let m = Mutator.mutate(base, with: other, &g)
            let (out, plan) = filterWithPlan(m)
            NothingLost.check(input: m, output: out)
            if out != m { changed += 1 }
            if !plan.reports.isEmpty { withPasses += 1 }
            if plan.reports.contains(where: { $0.status == .valid }) { withValidPasses += 1 }
            if n % 5 == 0 { XCTAssertTrue(out.flatMap(filter) == out, "not idempotent: mutation \(n)") }
        }
        for m in FilterCorpus.edgeCases { NothingLost.check(input: m, output: filter(m)) }
        XCTAssertGreaterThan(changed, 1000, "too few mutated messages got headers to exercise insertion")
        XCTAssertGreaterThan(withPasses, 1000, "too few mutated messages carried a pass the scanner saw")
        XCTAssertGreaterThan(withValidPasses, 300, "too few mutated messages kept a valid pass")
    }
}
