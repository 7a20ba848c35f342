import ArgumentParser
import Conduit

@main
struct Passconduit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passconduit",
        abstract: "Find Apple Wallet passes in mail, verify them, and keep a local pass library.",
        version: "0.1.0"
    )

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // The delivery filter must never exit with ArgumentParser's codes (64 on a bad flag).
        if arguments.first == "filter" {
            FilterEntry.run(arguments: Array(arguments.dropFirst()))
        }
        Self.main(arguments)
    }
}
