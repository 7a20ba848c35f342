/// pass.json of bytes already verified once (a pass in the library): unpacked within the limits
/// and parsed, without the manifest or the signature. Only for what orders and groups the library
/// (`groupingIdentifier`, event and departure dates); never a verdict.
extension PassOpener {
    package func document(of bytes: [UInt8]) -> PassDocument? {
        Self.document(of: bytes, limits: limits)
    }

    package static func document(of bytes: [UInt8], limits: PassLimits) -> PassDocument? {
        guard case .success(let archive) = PassArchive.open(bytes, limits: limits),
              let json = archive["pass.json"],
              case .success(let document) = PassDocument.parse(json, maxDepth: limits.maxJSONDepth, maxUpcomingEntries: limits.maxUpcomingEntries)
        else { return nil }
        return document
    }
}
