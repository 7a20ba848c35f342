import WalletPass

/// Which barcode of a pass to draw, by Wallet's rule as of iOS 27: the first item of `barcodes`
/// whose format Wallet draws (QR, PDF417, Aztec, Code 128, and since iOS 27 Code 39, Codabar,
/// EAN-13 and ITF), else the legacy `barcode`. So `[Codabar, QR]` draws the Codabar, as iOS 27
/// does (iOS 26 and earlier skip it and show the QR: WWDC26 session 209). The choice is by format
/// alone: a chosen message that cannot be drawn is shown as text with the reason, not replaced by
/// the next item. Never another symbology in place of the one asked for.
package struct BarcodeChoice: Sendable, Equatable {
    /// The barcode to draw, nil when the pass has none in a supported format.
    package let barcode: PassBarcode?
    /// Its format (nil with `barcode`).
    package let format: BarcodeFormat?
    /// Barcodes passed over because their format is not supported, in pass order.
    package let skipped: [PassBarcode]

    /// Chooses among `barcodes` (in order) then `legacy`.
    package init(barcodes: [PassBarcode], legacy: PassBarcode?) {
        var skipped: [PassBarcode] = []
        var candidates = barcodes
        if let legacy, !barcodes.contains(legacy) { candidates.append(legacy) }
        for candidate in candidates {
            if let format = BarcodeFormat(passKitName: candidate.format) {
                barcode = candidate
                self.format = format
                self.skipped = skipped
                return
            }
            skipped.append(candidate)
        }
        barcode = nil
        format = nil
        self.skipped = skipped
    }

    /// The choice for an opened pass (altText localized).
    package init(_ pass: PassInfo) {
        self.init(barcodes: pass.barcodes, legacy: pass.legacyBarcode)
    }

    /// The choice for a bare pass.json model (altText as written).
    package init(_ document: PassDocument) {
        self.init(barcodes: document.barcodes, legacy: document.legacyBarcode)
    }

    /// The barcode a person should see as text when none can be drawn: the chosen one, else the
    /// first the pass lists.
    package var textBarcode: PassBarcode? { barcode ?? skipped.first }

    /// A sentence for a pass whose barcodes are all in formats Wallet does not draw; nil otherwise.
    package var unsupportedNote: String? {
        guard barcode == nil, let first = skipped.first else { return nil }
        return BarcodeError.unsupportedFormat(first.format).message
    }

    /// The chosen barcode's modules; nil when there is none; throws `BarcodeError` when it
    /// cannot be encoded.
    package func matrix(barHeight: Int = BarcodeEncoder.defaultBarHeight) throws -> BarcodeMatrix? {
        guard let barcode else { return nil }
        return try BarcodeEncoder.matrix(for: barcode, barHeight: barHeight)
    }
}
