import ArgumentParser
import Conduit
import Foundation
import LibraryRoot
import PassStore

/// `passconduit library copy FROM TO`: moves a library between SQLite and PostgreSQL.
/// `library create|list|drop|purge`: a mailbox's library on a gateway's map (LibraryLife.swift).
struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        _superCommandName: "passconduit",
        abstract: "Move a pass library between a file (SQLite) and a PostgreSQL server; create, list, erase and purge mailboxes' libraries.",
        version: Passconduit.version,
        subcommands: [Copy.self, Create.self, ListLibraries.self, Drop.self, Purge.self, Grant.self, Throttles.self, ServiceTokens.self])

    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy",
            abstract: "Copy a library: passes with every kept version, offers, the change log.",
            discussion: """
            FROM and TO are library locations: a file path, or postgresql://USER@HOST/DB?… (libpq's
            URI rules). TO must be empty, or already hold exactly what FROM holds (then nothing is
            written: copying again is harmless). The copy is one transaction and is checked against
            FROM before the command succeeds. Sequence numbers, offer numbers and times are kept.

            Examples:
              passconduit library copy ~/.local/share/passconduit/library.sqlite 'postgresql:///mail?host=/run/postgresql'
              passconduit library copy --user alice 'postgresql://pc@db.example.org/mail' alice.sqlite
            """)

        @Option(name: .long, help: ArgumentHelp("Whose library on a PostgreSQL server (default: the login name).", valueName: "name"))
        var user: String?

        @Argument(help: "The library to copy from.")
        var from: String

        @Argument(help: "The library to copy to (empty or equal).")
        var to: String

        func run() throws {
            try Self.exiting {
                var options = LibraryOptions()
                options.user = user
                // Every version the source keeps comes across, however many its settings keep.
                options.keptVersions = Int.max / 2
                let (source, target) = (from, to)
                // Locations as messages may show them: never a password.
                let shownSource = LibraryLocation.withoutPassword(source)
                if let user, !LibraryRoot.isServer(source), !LibraryRoot.isServer(target), user != LibraryRoot.loginName {
                    throw CLIError("--user \(user): both libraries are files, which hold one person's passes; --user chooses whose library on a PostgreSQL server",
                                   status: .usage)
                }
                // The source is only read: a user or library it does not hold is "no library to
                // copy from" (66), and nothing is created there.
                let opened: (from: any PassLibraryBackend, to: any PassLibraryBackend)
                do {
                    opened = try Blocking.run { [options] in
                        let from: any PassLibraryBackend
                        do {
                            from = try await LibraryRoot.openForReading(source, options: options)
                        } catch let error as LibraryError where error.kind == .notFound {
                            throw LibraryError(.notFound, "there is no library to copy from (\(error.message))", path: shownSource)
                        }
                        let to = try await LibraryRoot.open(target, options: options)
                        return (from, to)
                    }
                } catch let error as LibraryError {
                    throw CLIError(opening: error)
                }
                let outcome: String = try LibraryCall.run { [opened] in
                    let (from, to) = opened
                    defer { Task { await from.close(); await to.close() } }
                    let problems = try await from.check(verifyBytes: true)
                    guard problems.isEmpty else {
                        throw LibraryError(.notALibrary, "copy: the library to copy from is not sound: \(problems.prefix(3).joined(separator: "; "))",
                                           path: from.location)
                    }
                    let snapshot = try await from.snapshot()
                    let existing = try await to.snapshot()
                    var wrote = false
                    if existing.isEmpty {
                        try await to.restore(snapshot)
                        wrote = true
                    }
                    let copied = try await to.snapshot()
                    let differences = copied.differences(from: snapshot)
                    guard differences.isEmpty else {
                        throw LibraryError(.exists, wrote
                            ? "copy: the copy differs from the source in \(differences.joined(separator: ", ")); check the target"
                            : "copy: the target already holds a different library (\(differences.joined(separator: ", "))); nothing was written",
                            path: to.location)
                    }
                    let targetProblems = try await to.check(verifyBytes: true)
                    guard targetProblems.isEmpty else {
                        throw LibraryError(.io, "copy: the copy does not check: \(targetProblems.prefix(3).joined(separator: "; "))", path: to.location)
                    }
                    let summary = "\(snapshot.passes.count) passes, \(snapshot.versions.count) kept versions, \(snapshot.offers.count) offers, \(snapshot.changes.count) changes"
                    return wrote ? "Copied \(summary) to \(to.location)." : "Already copied: \(to.location) holds the same \(summary)."
                }
                print(outcome)
                return .success
            }
        }
    }
}
