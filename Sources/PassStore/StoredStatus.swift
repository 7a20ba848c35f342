/// The status a pass is stored with, as its rows spell it ("valid", "untrusted", "unsigned"):
/// WalletPass's `PassStatus`, plus `unsigned` for a pass whose only fault is having no signature.
/// `invalid` is what a record may arrive with and the library refuses.
package enum StoredStatus: String, Sendable, Equatable, CaseIterable {
    case valid
    case untrusted
    case unsigned
    case invalid
}
