/// A pass's identity, as in PassKit: the pass type identifier and the serial number.
package struct PassID: Hashable, Sendable, CustomStringConvertible {
    package var passTypeIdentifier: String
    package var serialNumber: String

    package init(passTypeIdentifier: String, serialNumber: String) {
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
    }

    /// "passTypeIdentifier/serialNumber", the form `PassLibrary.resolve` accepts. Pass type
    /// identifiers are reverse-DNS names without "/", so the first "/" separates the two.
    package var description: String { "\(passTypeIdentifier)/\(serialNumber)" }

    /// SQLite receives text as C strings, so a NUL would cut an id short and make it another
    /// pass's id. No real pass has one: the library stores no such id and finds none.
    package var containsNUL: Bool {
        passTypeIdentifier.utf8.contains(0) || serialNumber.utf8.contains(0)
    }
}
