// libFuzzer entry point over the WalletPass parsers (archive + manifest + pass.json + pass.strings
// + bundle/probe + small value parsers). See Fuzz/PASS.md. No top-level code here: libFuzzer owns
// main, and top-level globals would never be initialised.
import WalletPass

enum FuzzPassConfig {
    /// Shipped Apple anchors (Config/trust) plus the test CA (Samples/ca/trust), so valid sample
    /// passes in the seed corpus reach every stage.
    static let opener: PassOpener = {
        var dirs: [String] = []
        if let shipped = TrustStore.shippedDirectory() {
            dirs.append(shipped)
            dirs.append(parent(parent(shipped)) + "/Samples/ca/trust")
        }
        let trust = (try? TrustStore.load(directories: dirs)) ?? (try! TrustStore.load(directories: []))
        return PassOpener(trust: trust)
    }()

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func passFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    _ = PassFuzzing.run(input, opener: FuzzPassConfig.opener)
    return 0
}
