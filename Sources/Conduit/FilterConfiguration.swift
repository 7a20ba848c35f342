/// Filter settings from the configuration file. Command-line flags win. A broken config must not
/// bounce mail: the problem is returned and the caller passes the message through (or fails closed).
package enum FilterConfiguration {
    package static func apply(to options: inout FilterOptions, explicit: Set<String>, environment: [String: String]) -> FilterError? {
        nil
    }
}
