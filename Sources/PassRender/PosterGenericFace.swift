import Foundation
import WalletPass

/// What a poster generic pass (iOS 27, the `posterGeneric` style key) shows on its face
/// ([Doc:creating-a-poster-generic-pass], [W26] 1:38-2:23 and 8:30; research note
/// wallet-2026.md §1): the `background` image full-bleed (else `artwork`), the `primaryLogo` top
/// left (else the logo text), a header field top right, up to four primary fields — the first
/// one without a label as a bold title — and the first footer field at the bottom, then the
/// barcode. `suppressHeaderDarkening` turns off the gradients behind the texts.
package struct PosterGenericFace: Sendable, Equatable {
    /// Top left when there is no `primaryLogo`: `logoText`, else the organization.
    package var logoText: String
    /// Top right: the first header field (Apple: "a header field").
    package var header: FieldCell?
    /// The first primary field when it has no label: drawn large and bold ([W26] 8:30).
    package var title: String?
    /// The other primary fields, four in all with the title.
    package var primary: [FieldCell]
    /// The first footer field (the session: "only the first footer field is displayed").
    package var footer: FieldCell?
    /// False when `suppressHeaderDarkening` is true.
    package var darkensHeader: Bool
    /// `useAutomaticColors`: text colours come from the image, not `foregroundColor`.
    package var automaticColors: Bool
    /// Colours of the texts over the image (set when the image is decoded).
    package var text: RGB = .white
    package var label: RGB = .white
    /// Fields of the style that the face does not show (more header, primary or footer fields).
    package var leftOut: Int

    static let maxPrimary = 4

    /// The face from `fields`, the `posterGeneric` style's groups as shown.
    init(info: PassInfo, fields: PassDocument.Fields) {
        let d = info.document
        logoText = FieldCell.cut(info.logoText.flatMap(PosterFace.nonBlank) ?? info.organizationName, to: 80)
        header = fields.headerFields.first.map { FieldCell($0, alignment: .right) }
        var primaries = Array(fields.primaryFields.prefix(Self.maxPrimary))
        if let first = primaries.first, (first.label ?? "").allSatisfy(\.isWhitespace) {
            title = FieldCell.cut(first.value, to: 120)
            primaries.removeFirst()
        }
        primary = primaries.map { FieldCell($0, alignment: .natural) }
        footer = fields.footerFields.first.map { FieldCell($0, alignment: .natural) }
        leftOut = max(0, fields.headerFields.count - 1) + max(0, fields.primaryFields.count - Self.maxPrimary)
            + max(0, fields.footerFields.count - 1)
        darkensHeader = !(d.suppressHeaderDarkening ?? false)
        automaticColors = d.useAutomaticColors ?? false
    }

    /// The colours of the texts, given the image's mean luminance (nil: no image, the card colour).
    mutating func chooseColors(colors: CardColors, imageLuminance: Double?) {
        guard let luminance = imageLuminance else {
            text = colors.foreground
            label = colors.label
            return
        }
        // The gradients darken the image to about 45 % where the texts sit.
        let shade = darkensHeader ? luminance * 0.45 : luminance
        let ground = RGB(shade, shade, shade)
        if automaticColors || colors.foreground.contrast(with: ground) < CardColors.minimumContrast {
            text = ground.readableText
            label = text
        } else {
            text = colors.foreground
            label = colors.label.contrast(with: ground) < CardColors.minimumContrast ? text : colors.label
        }
    }
}
