/// One field of a pass as the library keeps it, for change diffs on replace.
/// `value` is the rendered, localized value the user saw.
package struct StoredField: Sendable, Equatable, Codable {
    package var key: String
    package var label: String?
    package var value: String
    /// The pass's `changeMessage` format, e.g. "Gate changed to %@".
    package var changeMessage: String?

    package init(key: String, label: String? = nil, value: String, changeMessage: String? = nil) {
        self.key = key
        self.label = label
        self.value = value
        self.changeMessage = changeMessage
    }
}
