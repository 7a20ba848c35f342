/// One remote image of an upcoming entry (`images.headerImage.URLs[]`, iOS 26): Wallet downloads
/// it; passconduit never does (it fetches no URL from a pass except the pass's web service).
package struct RemoteImageSource: Sendable, Equatable {
    package var url: String
    package var sha256: String?
    package var scale: Double
    /// Bytes, as the issuer declares them (Apple allows at most 2 MB).
    package var size: Int?

    init?(_ o: [String: JSONValue], path: String, warnings: inout [String]) {
        var r = JSONDictionaryReader(o, path: path)
        guard let url = r.text("URL") else {
            warnings.append("\(path) has no URL; it is ignored")
            return nil
        }
        self.url = url
        sha256 = r.text("SHA256")
        scale = r.number("scale") ?? 1
        size = r.number("size").flatMap { Int(exactly: $0.rounded()) }
        warnings += r.warnings
    }
}
