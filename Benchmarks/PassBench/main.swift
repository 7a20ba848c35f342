// PassBench: open + verify one pass in process, many times; prints the median and passes/s.
//   PassBench [PASS] [--trust DIR]... [--iterations N] [--lang L]
// Defaults (run from the package root): Samples/passes/event-ticket.pkpass, trust = Config/trust
// + Samples/ca/trust, 20 000 iterations. The trust store is built once, outside the timing,
// as the CLI does. Driven by Benchmarks/pass/run.sh, which also times `openssl cms -verify`.
import Foundation
import WalletPass

var path = "Samples/passes/event-ticket.pkpass"
var trustDirs: [String] = []
var iterations = 20_000
var languages: [String] = []
var args = CommandLine.arguments.dropFirst()
while let arg = args.popFirst() {
    switch arg {
    case "--trust": if let v = args.popFirst() { trustDirs.append(v) }
    case "--iterations": iterations = args.popFirst().flatMap(Int.init) ?? iterations
    case "--lang": if let v = args.popFirst() { languages.append(v) }
    default: path = arg
    }
}
if trustDirs.isEmpty { trustDirs = ["Config/trust", "Samples/ca/trust"] }

guard let data = FileManager.default.contents(atPath: path) else {
    FileHandle.standardError.write(Data("PassBench: cannot read \(path)\n".utf8))
    exit(66)
}
let bytes = [UInt8](data)
let trust = try TrustStore.load(directories: trustDirs)
let opener = PassOpener(trust: trust, preferredLanguages: languages)

let first = opener.open(bytes)
guard first.status == .valid else {
    FileHandle.standardError.write(Data("PassBench: \(path) is \(first.status): \(first.error?.description ?? "")\n".utf8))
    exit(65)
}
for _ in 0..<min(500, iterations) { _ = opener.open(bytes) }  // warm-up

var samples = [UInt64]()
samples.reserveCapacity(iterations)
var checksum = 0
let wallStart = DispatchTime.now().uptimeNanoseconds
for _ in 0..<iterations {
    let t0 = DispatchTime.now().uptimeNanoseconds
    let v = opener.open(bytes)
    let t1 = DispatchTime.now().uptimeNanoseconds
    checksum &+= v.pass?.allFields.count ?? 0  // &+: keeps the result alive; overflow is harmless
    samples.append(t1 - t0)
}
let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9
samples.sort()
func ms(_ ns: UInt64) -> String { String(format: "%.4f", Double(ns) / 1e6) }
let median = samples[samples.count / 2]
print("pass: \(path) (\(bytes.count) bytes), \(first.pass?.kindName ?? "?"), signer chain \(first.pass?.signer?.chain.count ?? 0)")
print("iterations: \(iterations)  median: \(ms(median)) ms  p10: \(ms(samples[samples.count / 10]))  p90: \(ms(samples[samples.count * 9 / 10]))  min: \(ms(samples[0]))")
print(String(format: "passes/s (one core, wall): %.0f   passes/s at the median: %.0f   checksum %d",
             Double(iterations) / wall, 1e9 / Double(median), checksum))
