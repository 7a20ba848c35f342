/// Every bound the pass reader enforces, in one value. Each limit names the attack it stops;
/// defaults are generous for real passes (the largest collected real pass is 1.06 MB with 27 entries).
package struct PassLimits: Sendable, Equatable {
    /// Bytes of the `.pkpass` file itself. Stops memory exhaustion before anything is parsed.
    package var maxArchiveBytes: Int = 32 * 1024 * 1024
    /// Entries in the zip's central directory. Stops 100 000-entry archives that cost time and memory
    /// per entry even when every entry is empty. Checked from the end record before the directory is read.
    package var maxEntries: Int = 1024
    /// Declared uncompressed size of one entry. Stops zip bombs; checked before inflating, and the
    /// inflater never produces more than the declared size, so a lying header cannot get past it.
    package var maxEntryBytes: Int = 16 * 1024 * 1024
    /// Sum of the declared uncompressed sizes. Stops many medium entries adding up to a bomb.
    package var maxTotalBytes: Int = 64 * 1024 * 1024
    /// Declared uncompressed size / compressed size. Deflate cannot exceed about 1032:1, so a higher
    /// ratio means the header lies; refused before inflating.
    package var maxCompressionRatio: Int = 1100
    /// Nesting depth of pass.json / manifest.json. Stops stack exhaustion in the JSON reader.
    package var maxJSONDepth: Int = 64
    /// `.pkpass` members of a `.pkpasses` bundle. Stops a bundle from multiplying the work per message.
    package var maxBundleMembers: Int = 64
    /// Entries of `upcomingPassInformation` read into the model (a baseball season is 81 home
    /// games). Stops a pass of thousands of entries from multiplying the work of every view and
    /// of the calendar; the rest are counted (`PassDocument.upcomingLeftOut`) and said.
    package var maxUpcomingEntries: Int = 100

    package init() {}

    /// The limits for passes a person adds on purpose (`add FILE`): a bundle may hold as many
    /// passes as an archive may hold entries, so a backup `export --all` wrote restores whole
    /// (`maxBundleMembers` protects the delivery filter, where a stranger chooses the bundle).
    package var forAddingOnPurpose: PassLimits {
        var limits = self
        limits.maxBundleMembers = Swift.max(maxBundleMembers, maxEntries)
        return limits
    }

    package static let `default` = PassLimits()
}
