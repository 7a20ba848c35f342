import Foundation

/// A person's name in semantics (`passengerName`, an item of `attendeeNames`): Apple documents a
/// PersonNameComponents dictionary; some issuers write a plain string, kept as `text`.
package struct PassPersonName: Sendable, Equatable {
    package var givenName: String?
    package var middleName: String?
    package var familyName: String?
    package var namePrefix: String?
    package var nameSuffix: String?
    package var nickname: String?
    /// The name as one line: a plain string as written, else the parts in Western order.
    package var text: String

    init?(_ value: JSONValue) {
        if let s = value.string {
            let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { return nil }
            text = trimmed
            return
        }
        guard let o = value.object else { return nil }
        func part(_ key: String) -> String? {
            guard let s = o[key]?.string?.trimmingCharacters(in: .whitespacesAndNewlines), !s.isEmpty else { return nil }
            return s
        }
        givenName = part("givenName")
        middleName = part("middleName")
        familyName = part("familyName")
        namePrefix = part("namePrefix")
        nameSuffix = part("nameSuffix")
        nickname = part("nickname")
        let parts = [namePrefix, givenName, middleName, familyName, nameSuffix].compactMap { $0 }
        guard let line = parts.isEmpty ? nickname : parts.joined(separator: " ") else { return nil }
        text = line
    }
}
