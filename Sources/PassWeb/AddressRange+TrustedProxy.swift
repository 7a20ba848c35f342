import Support

extension AddressRange {
    /// `--trusted-proxy ADDR[/BITS]` (the range itself lives in Support, shared with the milter's `--allow`).
    package static func parse(_ text: String) throws(WebSetupError) -> AddressRange {
        do {
            return try parse(text, option: "--trusted-proxy")
        } catch {
            throw WebSetupError(error.description)
        }
    }
}
