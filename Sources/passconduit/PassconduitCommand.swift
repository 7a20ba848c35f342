import ArgumentParser
import Conduit

@main
struct Passconduit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passconduit",
        abstract: "Find Apple Wallet passes in mail, verify them, and keep a local pass library.",
        version: "0.1.0"
    )
}
