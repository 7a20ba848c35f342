/// Where a pass asks for its updates: pass.json's `webServiceURL` and `authenticationToken`.
package struct PassWebService: Sendable, Equatable {
    package var webServiceURL: String
    package var authenticationToken: String
}

extension PassOpener {
    /// Reads only pass.json (safely unpacked, within the limits) for the web-service keys of a
    /// pass the library already verified when it stored it; nil when the pass has none. Cheap
    /// enough to run over a whole library: no manifest, no signature, no images.
    package func webService(of bytes: [UInt8]) -> PassWebService? {
        guard case .success(let archive) = PassArchive.open(bytes, limits: limits),
              let passJSON = archive["pass.json"],
              case .success(let document) = PassDocument.parse(passJSON, maxDepth: limits.maxJSONDepth, maxUpcomingEntries: limits.maxUpcomingEntries),
              let url = document.webServiceURL, !url.isEmpty,
              let token = document.authenticationToken, !token.isEmpty else { return nil }
        return PassWebService(webServiceURL: url, authenticationToken: token)
    }
}
