import ArgumentParser

/// `passconduit filter` as the parser knows it: so it is listed in --help, the man page and the
/// completions. `Passconduit.main` hands "filter" to `FilterCommand` before parsing (a delivery
/// filter must never exit with the parser's codes), so this command's own `run` is reached only
/// if that routing is bypassed, and then does the same.
struct MailFilter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Delivery-filter mode: message on stdin to stdout, passes staged as offers.",
        discussion: """
        For procmail (:0 fw), maildrop (xfilter), Postfix pipe(8), Exim, Dovecot Sieve, fetchmail \
        and getmail; recipes are in /usr/share/doc/passconduit/examples/integrations/ (Samples/integrations/ in the source \
        tree). The message always comes out whole: \
        exit 0 with the complete message, or 75 with no output so the mail host retries. New \
        valid passes become offers ("passconduit offers"); a newer version of a pass already in \
        your library is applied.

        \(flowed(FilterArguments.usage))

        Example:
          passconduit filter < message.eml > delivered.eml
        """)

    /// The filter's own usage text as one paragraph, so the help formatter can wrap it.
    static func flowed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Argument(parsing: .captureForPassthrough, help: "Filter options (see above).")
    var arguments: [String] = []

    func run() throws {
        FilterCommand.run(arguments: arguments)
    }
}
