import Support

/// One field of a pass (PassFieldContent), as written in pass.json. `PassInfo` carries the
/// localized, rendered copy.
package struct PassField: Sendable, Equatable {
    package var key: String
    package var label: String?
    /// The value as shown: localized, and formatted when a date/number style asks for it.
    package var value: String
    /// The value as written (string, number or date string).
    package var rawValue: JSONValue
    package var attributedValue: String?
    /// Shown when the value changes on an update; `%@` stands for the new value.
    package var changeMessage: String?
    package var textAlignment: String?
    package var dateStyle: String?
    package var timeStyle: String?
    package var numberStyle: String?
    package var currencyCode: String?
    package var isRelative: Bool = false
    package var ignoresTimeZone: Bool = false
    package var dataDetectorTypes: [String]?
    package var row: Int?
    package var semantics: JSONValue?

    init?(_ json: JSONValue) {
        guard let o = json.object, let key = o["key"]?.text else { return nil }
        self.key = key
        label = o["label"]?.text
        rawValue = o["value"] ?? .string("")
        value = rawValue.text ?? ""
        attributedValue = o["attributedValue"]?.text
        changeMessage = o["changeMessage"]?.string
        textAlignment = o["textAlignment"]?.string
        dateStyle = o["dateStyle"]?.string
        timeStyle = o["timeStyle"]?.string
        numberStyle = o["numberStyle"]?.string
        currencyCode = o["currencyCode"]?.string
        isRelative = o["isRelative"]?.lenientBool ?? false
        ignoresTimeZone = o["ignoresTimeZone"]?.lenientBool ?? false
        dataDetectorTypes = o["dataDetectorTypes"]?.array?.compactMap(\.string)
        row = o["row"]?.integer
        semantics = o["semantics"]
    }

    /// The change message filled in with `newValue` (`ChangeMessage`), or nil when none is set.
    package func changeNotice(newValue: String) -> String? {
        changeMessage.map { ChangeMessage.fill($0, with: newValue) }
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
