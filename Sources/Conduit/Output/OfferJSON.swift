import PassStore

/// JSON for a staged offer (`offers --json`, and the web wallet's `/api/v1/offers`).
package enum OfferJSON {
    package static func object(_ offer: Offer) -> JSONOutput {
        .object([
            ("schema", .int(FoundPassJSON.schema)),
            ("offer", .int(offer.offerID)),
            ("id", .string(offer.passID.description)),
            ("status", .string(offer.status.rawValue)),
            ("organizationName", .string(offer.organizationName)),
            ("description", .string(offer.description)),
            ("kind", .string(offer.kind)),
            ("source", offer.source.map {
                .object([("messageId", .string($0.messageID)), ("subject", .string($0.subject)), ("file", .path($0.file))]
                        + SourceText.chatJSON($0))
            } ?? .null),
            ("createdAt", .date(offer.createdAt)),
            ("sha256", .string(offer.sha256)),
        ])
    }
}
