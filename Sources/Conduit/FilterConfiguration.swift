/// Filter settings from the configuration file (`Config`, `[filter]`, `[limits]`, `[library]`,
/// `[trust]`, `language`). Command-line flags win. A broken config must not bounce mail: the
/// problem is returned and the caller passes the message through (or fails closed, 75) — never
/// EX_CONFIG (78), which Postfix bounces.
package enum FilterConfiguration {
    package static func apply(to options: inout FilterOptions, explicit: Set<String>, environment: [String: String]) -> FilterError? {
        let config: Config
        do {
            config = try Config.load(explicitPath: options.configPath, environment: environment)
        } catch {
            return FilterError(.badConfig, detail: error.description)
        }
        apply(config, to: &options, explicit: explicit, environment: environment)
        return nil
    }

    package static func apply(_ config: Config, to options: inout FilterOptions, explicit: Set<String>, environment: [String: String]) {
        options.config = config
        if !explicit.contains("maxScanBytes") { options.maxScanBytes = config.limits.filterMaxMessageBytes }
        if !explicit.contains("deadlineSeconds") { options.deadlineSeconds = config.limits.filterDeadlineSeconds }
        if !explicit.contains("applyUpdates") { options.applyUpdates = config.filter.applyUpdates }
        if !explicit.contains("headers") { options.headers = config.filter.addHeaders }
    }
}
