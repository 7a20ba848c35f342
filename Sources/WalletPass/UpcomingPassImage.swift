/// An image of an upcoming entry (`images.headerImage`, `images.venueMap`): remote sources by
/// scale, or `reuseExisting` for the pass's own image of that name.
package struct UpcomingPassImage: Sendable, Equatable {
    package var sources: [RemoteImageSource]
    /// Use the pass's own image (`venueMap.png` in the bundle) instead of the URLs.
    package var reuseExisting: Bool

    init(_ o: [String: JSONValue], path: String, warnings: inout [String]) {
        var r = JSONDictionaryReader(o, path: path)
        let items = r.objects("URLs")
        reuseExisting = r.bool("reuseExisting") ?? false
        warnings += r.warnings
        sources = items.enumerated().compactMap { i, item in
            RemoteImageSource(item, path: "\(path).URLs[\(i)]", warnings: &warnings)
        }
    }
}
