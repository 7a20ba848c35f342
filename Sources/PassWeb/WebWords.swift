/// The conduit's sentences as a person on the web wallet reads them: the intake policy speaks to
/// the command line ("Use --allow-untrusted to add it anyway."), which a page must not (issue 41
/// item 4: no command-line flag on any page). The reason stays; the advice becomes the wallet's.
enum WebWords {
    static let replacements = [
        (" Use --allow-untrusted to add it anyway.", " This wallet adds only passes from issuers it trusts."),
        (" Use --allow-unsigned to keep it anyway.", " This wallet adds only signed passes."),
    ]

    /// Words of the conduit's sentences that speak of the machine the command runs on: the
    /// wallet is a web service (operator trial D9: "signed by someone this computer doesn't trust").
    static let machine = [
        ("on this computer", "on this server"),
        ("this computer", "this wallet"),
    ]

    static func forPeople(_ sentence: String) -> String {
        var text = sentence
        for (cli, web) in replacements where text.hasSuffix(cli) {
            text = String(text.dropLast(cli.count)) + web
        }
        for (machine, web) in machine where text.contains(machine) {
            text = text.replacingOccurrences(of: machine, with: web)
        }
        return text
    }
}
