/// One entry point for the libFuzzer target (Sources/FuzzPass) over every byte parser of this
/// module: the first input byte picks the parser, the rest is its input.
package enum PassFuzzing {
    /// Runs one input through the chosen parser; returns a number derived from the result so the
    /// work cannot be optimised away.
    package static func run(_ input: [UInt8], opener: PassOpener) -> Int {
        guard let selector = input.first else { return 0 }
        let body = Array(input.dropFirst())
        switch selector % 6 {
        case 0:
            let v = opener.open(body)
            return v.status.hashValue &+ (v.pass?.allFields.count ?? 0)  // &+: a checksum, overflow is fine
        case 1:
            switch PassDocument.parse(body, maxDepth: opener.limits.maxJSONDepth, maxUpcomingEntries: opener.limits.maxUpcomingEntries) {
            case .success(let d):
                let fields = d.fields.all.map { FieldRenderer.render($0, localize: { $0 }) }
                return fields.reduce(0) { $0 &+ $1.value.utf8.count }  // &+: checksum
            case .failure(let e): return e.detail.count
            }
        case 2:
            let strings = StringsFile.parse(body)
            return strings.entries.count &+ (strings.problem?.count ?? 0)  // &+: checksum
        case 3:
            switch Manifest.parse(body, maxDepth: opener.limits.maxJSONDepth) {
            case .success(let m): return m.digests.count
            case .failure(let e): return e.detail.count
            }
        case 4:
            let names = ZipProbe.entryNames(body) ?? []
            return names.count &+ opener.openBundle(body).count  // &+: checksum
        default:
            let text = String(decoding: body, as: UTF8.self)
            var n = PassDate(text) == nil ? 0 : 1
            n &+= PassColor(text) == nil ? 0 : 2  // &+: checksum
            n &+= PassImage.pngSize(body)?.width ?? 0
            n &+= SignatureVerifier.derString(body)?.count ?? 0
            n &+= CMSCertificates.split(body)?.certificates.count ?? 0
            // Folder names come from an archive (at most maxEntries of them), tags from the user.
            let folders = text.split(separator: ",").prefix(opener.limits.maxEntries).map(String.init)
            n &+= Localization.choose(folders, preferred: [String(text.prefix(256))]).map { $0.count } ?? 0
            return n
        }
    }
}
