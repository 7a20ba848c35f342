import Foundation

/// The metadata a conduit shows for a pass: localized, with the icon and the signer.
package struct PassInfo: Sendable, Equatable {
    package var passTypeIdentifier: String
    package var serialNumber: String
    package var teamIdentifier: String
    /// Localized.
    package var organizationName: String
    /// Localized.
    package var description: String
    package var logoText: String?
    package var kind: PassKind
    /// "Boarding Pass", "Coupon", "Event Ticket", "Store Card", "Pass".
    package var kindName: String
    package var transitType: String?
    package var relevantDate: Date?
    package var relevantDates: [PassDocument.RelevantDate]
    package var expirationDate: Date?
    package var voided: Bool
    /// "#rrggbb".
    package var foregroundColor: String?
    package var backgroundColor: String?
    /// Falls back to the foreground colour, as Wallet does.
    package var labelColor: String?
    /// `barcodes`, else the legacy `barcode` (altText localized).
    package var barcodes: [PassBarcode]
    /// The legacy `barcode` (altText localized), also when `barcodes` is present.
    package var legacyBarcode: PassBarcode?
    package var headerFields: [PassField]
    package var primaryFields: [PassField]
    package var secondaryFields: [PassField]
    package var auxiliaryFields: [PassField]
    package var backFields: [PassField]
    package var additionalInfoFields: [PassField]
    package var webServiceURL: String?
    /// Whether the pass can fetch updates of itself (`webServiceURL` with an `authenticationToken`).
    package var canUpdate: Bool
    package var signer: SignerInfo?
    package var icon: PassImage?
    /// Every image of the pass (logo, strip, background, …), localized like the texts.
    package var images: PassImages = .empty
    /// The `.lproj` folder used ("de"), nil when the pass has none.
    package var language: String?
    /// All `.lproj` folders of the pass.
    package var languages: [String]
    /// The whole pass.json model, unlocalized.
    package var document: PassDocument

    /// Every field in display order (header, primary, secondary, auxiliary, back, additional info).
    package var allFields: [PassField] {
        PassFieldGroup.allCases.flatMap { $0.fields(of: self) }
    }

    /// The shown (localized, formatted) value of the field with `key`, or nil.
    package func localizedValue(forFieldKey key: String) -> String? {
        allFields.first { $0.key == key }?.value
    }

    /// The field with `key`, or nil.
    package func field(_ key: String) -> PassField? {
        allFields.first { $0.key == key }
    }
}
