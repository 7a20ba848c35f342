import PassRender
import WalletPass

/// Turns the pass's barcode into what the card draws. (The Barcodes target's encoder plugs in here.)
enum CardBarcodeSource {
    static func barcode(for info: PassInfo) -> CardBarcode? {
        nil
    }
}
