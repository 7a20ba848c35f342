import Foundation
import Support

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
    /// The six field groups as shown (localized, formatted), rendered on first read: rendering a
    /// date field looks up the device's time zone (~1.6 M instructions the first time, issue 14),
    /// and the delivery filter's usual path (stage an offer) reads no field. The groups below read
    /// and write it.
    var shownFields: Deferred<PassDocument.Fields>
    package var headerFields: [PassField] {
        get { shownFields.value.headerFields }
        set { updateFields { $0.headerFields = newValue } }
    }
    package var primaryFields: [PassField] {
        get { shownFields.value.primaryFields }
        set { updateFields { $0.primaryFields = newValue } }
    }
    package var secondaryFields: [PassField] {
        get { shownFields.value.secondaryFields }
        set { updateFields { $0.secondaryFields = newValue } }
    }
    package var auxiliaryFields: [PassField] {
        get { shownFields.value.auxiliaryFields }
        set { updateFields { $0.auxiliaryFields = newValue } }
    }
    package var backFields: [PassField] {
        get { shownFields.value.backFields }
        set { updateFields { $0.backFields = newValue } }
    }
    package var additionalInfoFields: [PassField] {
        get { shownFields.value.additionalInfoFields }
        set { updateFields { $0.additionalInfoFields = newValue } }
    }
    /// The `posterGeneric` style's groups as shown (localized, formatted like the others, with its
    /// `footerFields`), rendered on first read; nil when the pass has no such style. A pass that
    /// carries a classic style too has that style's groups above and is drawn from these.
    var shownPosterFields: Deferred<PassDocument.Fields>? = nil
    package var posterGenericFields: PassDocument.Fields? { shownPosterFields?.value }
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
    /// The chosen language's `pass.strings` (key to translation), empty without one.
    package var strings: [String: String] = [:]
    /// The whole pass.json model, unlocalized.
    package var document: PassDocument

    /// Whether `relevantDate` was written as a day without a time ("2027-03-06"): that day
    /// wherever the reader is, never shifted by a time zone (as the calendar's all-day event).
    package var relevantDateIsDay: Bool {
        let written = document.relevantDate ?? document.relevantDates.first.flatMap { $0.date ?? $0.startDate }
        return written?.text.utf8.count == 10
    }

    /// A new box: a copy of this info shares the old one, which must not change under it.
    private mutating func updateFields(_ change: (inout PassDocument.Fields) -> Void) {
        var fields = shownFields.value
        change(&fields)
        shownFields = Deferred(value: fields)
    }

    /// Every field in display order (header, primary, secondary, auxiliary, back, additional info).
    package var allFields: [PassField] {
        PassFieldGroup.allCases.flatMap { $0.fields(of: self) }
    }

    /// The shown (localized, formatted) value of the field with `key`, or nil.
    package func localizedValue(forFieldKey key: String) -> String? {
        allFields.first { $0.key == key }?.value
    }

    /// `text` through the pass's `pass.strings`, as field labels and values are: the translation
    /// when the text is a key of the table, else the text itself.
    package func localized(_ text: String) -> String { strings[text] ?? text }

    /// The field with `key`, or nil.
    package func field(_ key: String) -> PassField? {
        allFields.first { $0.key == key }
    }
}
