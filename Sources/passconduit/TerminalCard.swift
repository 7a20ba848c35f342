import Foundation

/// `render --format terminal`: the barcode in half blocks (the Barcodes target draws it).
enum TerminalCard {
    static func barcode(_ pass: RenderSource) throws -> String {
        throw CLIError("\(pass.name): terminal drawing is not available yet", status: .dataError)
    }
}
