/// One pass of a `.pkpasses` bundle, verified on its own. A bundle that cannot be read at all gives
/// exactly one member without a `name` whose verdict carries the error.
package struct BundleMember: Sendable, Equatable {
    /// The member's file name inside the bundle ("boarding-pass.pkpass"); nil for the error
    /// member of an unreadable bundle.
    package var name: String?
    package var verdict: PassVerdict
    /// The member's own `.pkpass` bytes, exactly as inflated from the bundle (what a library
    /// stores and exports); empty for the error member of an unreadable bundle.
    package var bytes: [UInt8] = []
}
