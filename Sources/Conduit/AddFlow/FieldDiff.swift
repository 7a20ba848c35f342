import PassStore

/// The changes an update would make, computed before asking, so the user sees them first.
/// The library's `replace` applies the very same comparison (`FieldChange.between`), so what the
/// user is shown is what the library records.
package enum FieldDiff {
    package static func changes(from old: [StoredField], to new: [StoredField]) -> [FieldChange] {
        FieldChange.between(old: old, new: new)
    }
}
