import Support

/// One field that differs between the stored pass and its replacement.
package struct FieldChange: Sendable, Equatable {
    package var key: String
    package var label: String?
    /// nil when the field is new.
    package var oldValue: String?
    /// nil when the field was dropped.
    package var newValue: String?
    /// The new field's `changeMessage` with `%@` filled with the new value; nil when the
    /// field has no change message or was dropped (Wallet shows nothing then).
    package var message: String?

    package init(key: String, label: String?, oldValue: String?, newValue: String?, message: String?) {
        self.key = key
        self.label = label
        self.oldValue = oldValue
        self.newValue = newValue
        self.message = message
    }

    /// The change a replacement that voids the pass makes, first among its changes: the one a
    /// person must not miss (a cancelled flight or event), whatever fields changed beside it.
    package static let voiding = FieldChange(key: "voided", label: "Voided", oldValue: "no", newValue: "yes",
                                             message: "The issuer voided this pass.")

    /// `between(old:new:)`, led by `voiding` when the replacement voids a pass that was not void.
    package static func between(old: [StoredField], new: [StoredField], voids: Bool) -> [FieldChange] {
        (voids ? [voiding] : []) + between(old: old, new: new)
    }

    /// The per-field differences, in the new pass's field order, then fields that were dropped.
    /// A key that appears twice counts once (its first occurrence), as Wallet keys are unique.
    package static func between(old: [StoredField], new: [StoredField]) -> [FieldChange] {
        var oldByKey: [String: StoredField] = [:]
        for field in old where oldByKey[field.key] == nil { oldByKey[field.key] = field }
        var seen = Set<String>()
        var changes: [FieldChange] = []
        for field in new where seen.insert(field.key).inserted {
            let before = oldByKey[field.key]
            guard before?.value != field.value else { continue }
            changes.append(FieldChange(key: field.key, label: field.label ?? before?.label,
                                       oldValue: before?.value, newValue: field.value,
                                       message: field.changeMessage.map { ChangeMessage.fill($0, with: field.value) }))
        }
        var dropped = Set<String>()
        for field in old where !seen.contains(field.key) && dropped.insert(field.key).inserted {
            changes.append(FieldChange(key: field.key, label: field.label, oldValue: field.value,
                                       newValue: nil, message: nil))
        }
        return changes
    }
}
