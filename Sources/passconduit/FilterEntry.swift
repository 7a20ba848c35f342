import Conduit

/// `passconduit filter` bypasses ArgumentParser's own exit codes: a delivery filter may only ever
/// exit 0 (complete message written) or 75 (nothing written, the MTA retries). See DESIGN.md,
/// "The delivery-filter contract", and `Conduit.FilterCommand`.
enum FilterEntry {
    static func run(arguments: [String]) -> Never {
        FilterCommand.run(arguments: arguments, environment: FilterEnvironment.current()) { options, environment in
            FilterScanner(options: options, environment: environment)
        }
    }
}
