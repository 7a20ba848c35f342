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
}
