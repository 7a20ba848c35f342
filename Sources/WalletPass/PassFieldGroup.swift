/// The field groups of a pass style, in display order: the one list every place that walks a
/// pass's fields uses (the library record, the update diff, `show`, JSON, the scrubber), so none
/// can leave a group out again (`additionalInfoFields` was missing from the library record, so
/// update diffs did not see changes there).
package enum PassFieldGroup: String, CaseIterable, Sendable {
    case header = "headerFields"
    case primary = "primaryFields"
    case secondary = "secondaryFields"
    case auxiliary = "auxiliaryFields"
    case back = "backFields"
    case additionalInfo = "additionalInfoFields"

    /// The groups on the front of the pass.
    package static let front: [PassFieldGroup] = [.header, .primary, .secondary, .auxiliary]

    /// The pass.json key (`headerFields`…).
    package var key: String { rawValue }

    /// The short name in JSON output (`header`, …, `additionalInfo`).
    package var name: String { String(rawValue.dropLast("Fields".count)) }

    /// The heading people read (`Header`, …, `Additional info`).
    package var title: String {
        switch self {
        case .header: "Header"
        case .primary: "Primary"
        case .secondary: "Secondary"
        case .auxiliary: "Auxiliary"
        case .back: "Back"
        case .additionalInfo: "Additional info"
        }
    }

    /// The group's fields as shown (localized, formatted).
    package func fields(of info: PassInfo) -> [PassField] {
        switch self {
        case .header: info.headerFields
        case .primary: info.primaryFields
        case .secondary: info.secondaryFields
        case .auxiliary: info.auxiliaryFields
        case .back: info.backFields
        case .additionalInfo: info.additionalInfoFields
        }
    }

    /// Replaces the group's fields in `fields` (the one switch that writes a group, beside the ones
    /// that read it).
    package func set(_ value: [PassField], in fields: inout PassDocument.Fields) {
        switch self {
        case .header: fields.headerFields = value
        case .primary: fields.primaryFields = value
        case .secondary: fields.secondaryFields = value
        case .auxiliary: fields.auxiliaryFields = value
        case .back: fields.backFields = value
        case .additionalInfo: fields.additionalInfoFields = value
        }
    }

    /// The group's fields as pass.json has them.
    package func fields(of fields: PassDocument.Fields) -> [PassField] {
        switch self {
        case .header: fields.headerFields
        case .primary: fields.primaryFields
        case .secondary: fields.secondaryFields
        case .auxiliary: fields.auxiliaryFields
        case .back: fields.backFields
        case .additionalInfo: fields.additionalInfoFields
        }
    }
}
