/// A barcode (`barcodes` items, or the legacy `barcode` dictionary).
package struct PassBarcode: Sendable, Equatable {
    /// "PKBarcodeFormatQR", "PKBarcodeFormatPDF417", "PKBarcodeFormatAztec", "PKBarcodeFormatCode128", …
    package var format: String
    package var message: String
    /// IANA charset name; usually "iso-8859-1".
    package var messageEncoding: String
    package var altText: String?

    package init(format: String, message: String, messageEncoding: String = "iso-8859-1", altText: String? = nil) {
        self.format = format
        self.message = message
        self.messageEncoding = messageEncoding
        self.altText = altText
    }

    init?(_ json: JSONValue) {
        guard let o = json.object, let format = o["format"]?.string, let message = o["message"]?.text else { return nil }
        self.format = format
        self.message = message
        messageEncoding = o["messageEncoding"]?.string ?? "iso-8859-1"
        altText = o["altText"]?.text
    }

    /// "QR", "PDF417", "Aztec", "Code128", …: the format without Apple's prefix.
    package var formatName: String {
        format.hasPrefix("PKBarcodeFormat") ? String(format.dropFirst("PKBarcodeFormat".count)) : format
    }
}
