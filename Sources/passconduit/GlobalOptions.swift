import ArgumentParser

/// Options every command takes (DESIGN.md, "Command-line contract").
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The pass library: a file, or postgresql://USER@HOST/DB?… (libpq's URI rules) for a library on a PostgreSQL server.", valueName: "path"))
    var library: String?

    @Option(name: .long, help: ArgumentHelp("Whose library on a PostgreSQL server that keeps many users' libraries (default: the login name).", valueName: "name"))
    var user: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file (default: $XDG_CONFIG_HOME/passconduit/config.toml, else /etc/passconduit/config.toml).", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("A folder of extra trust anchors (PEM or DER); repeatable.", valueName: "dir"))
    var trust: [String] = []

    @Option(name: .long, help: ArgumentHelp("Preferred language for pass texts, e.g. de or fr-CA (default: from LANG).", valueName: "code"))
    var lang: String?

    @Flag(name: .long, help: "Write JSON, one object per line.")
    var json = false

    @Flag(name: [.short, .long], help: "Show technical details.")
    var verbose = false

    @Flag(name: .long, help: "Never colour the output (NO_COLOR does the same).")
    var noColor = false
}
