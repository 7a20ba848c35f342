/// What opening a pass found.
package struct PassVerdict: Sendable, Equatable {
    package var status: PassStatus
    /// Why it is not `valid` (nil when valid).
    package var error: PassError?
    /// Present whenever pass.json could be read, even for invalid or untrusted passes.
    package var pass: PassInfo?
    /// Things worth telling that do not change the status
    /// ("The signing certificate expired on 2019-05-01, after the pass was signed.").
    package var notes: [String]
    /// Lowercase hex SHA-256 of the `.pkpass` bytes.
    package var sha256: String

    package init(status: PassStatus, error: PassError?, pass: PassInfo?, notes: [String], sha256: String) {
        self.status = status
        self.error = error
        self.pass = pass
        self.notes = notes
        self.sha256 = sha256
    }
}
