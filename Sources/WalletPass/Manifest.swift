import Support

/// `manifest.json`: the digest of every file in the pass except itself and `signature`.
/// Digests are 40-hex SHA-1 (every real pass) or 64-hex SHA-256 (accepted defensively), compared
/// case-insensitively (real manifests use both cases).
struct Manifest: Equatable {
    /// File name -> lowercase hex digest.
    var digests: [String: String]

    static let exempt: Set<String> = ["manifest.json", "signature"]

    static func parse(_ bytes: [UInt8], maxDepth: Int) -> Result<Manifest, PassError> {
        let json: JSONValue
        switch JSONReader.parse(bytes, maxDepth: maxDepth) {
        case .success(let v): json = v
        case .failure(let f): return .failure(.badJSON("manifest.json", f.description))
        }
        guard let object = json.object else { return .failure(.badJSON("manifest.json", "is not a JSON object")) }
        var digests: [String: String] = [:]
        for (name, value) in object {
            guard let hex = value.string else { return .failure(.malformedDigest(name, "\(value)")) }
            let lower = hex.lowercased()
            guard lower.utf8.count == 40 || lower.utf8.count == 64,
                  lower.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                return .failure(.malformedDigest(name, hex))
            }
            digests[name] = lower
        }
        return .success(Manifest(digests: digests))
    }

    /// Every listed file present with a matching digest, then every archive file listed.
    func verify(_ archive: PassArchive) -> PassError? {
        for name in digests.keys.sorted() where !Manifest.exempt.contains(name) {
            let listed = digests[name]!  // key taken from the dictionary itself
            guard let data = archive[name] else { return .listedFileMissing(name) }
            let algorithm: Digest.Algorithm = listed.utf8.count == 64 ? .sha256 : .sha1
            let actual = Digest.hex(algorithm, data)
            if actual != listed {
                return .digestMismatch(name, algorithm: algorithm.rawValue, listed: listed, actual: actual)
            }
        }
        for name in archive.names where !Manifest.exempt.contains(name) && digests[name] == nil {
            return .unlistedFile(name)
        }
        return nil
    }
}
