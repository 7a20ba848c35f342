import PassStore

/// The changes an update would make, computed before asking, so the user sees them first
/// (the library's `replace` computes the same list when it applies the update).
package enum FieldDiff {
    package static func changes(from old: [StoredField], to new: [StoredField]) -> [FieldChange] {
        var oldByKey: [String: StoredField] = [:]
        for field in old where oldByKey[field.key] == nil { oldByKey[field.key] = field }
        var seen = Set<String>()
        var changes: [FieldChange] = []
        for field in new where seen.insert(field.key).inserted {
            let before = oldByKey[field.key]
            guard before?.value != field.value else { continue }
            changes.append(FieldChange(key: field.key, label: field.label ?? before?.label,
                                       oldValue: before?.value, newValue: field.value,
                                       message: field.changeMessage.map { fill($0, with: field.value) }))
        }
        var dropped = Set<String>()
        for field in old where !seen.contains(field.key) && dropped.insert(field.key).inserted {
            changes.append(FieldChange(key: field.key, label: field.label, oldValue: field.value, newValue: nil, message: nil))
        }
        return changes
    }

    /// A changeMessage format filled the way Wallet does: `%@` and `%1$@` become the value, `%%` a percent sign.
    package static func fill(_ format: String, with value: String) -> String {
        var out = ""
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            let after = rest[percent...]
            if after.hasPrefix("%@") {
                out += value
                rest = after.dropFirst(2)
            } else if after.hasPrefix("%1$@") {
                out += value
                rest = after.dropFirst(4)
            } else if after.hasPrefix("%%") {
                out += "%"
                rest = after.dropFirst(2)
            } else {
                out += "%"
                rest = after.dropFirst()
            }
        }
        return out + rest
    }
}
