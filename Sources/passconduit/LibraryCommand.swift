import ArgumentParser
import Conduit
import Foundation
import LibraryRoot
import PassStore

/// `passconduit library copy FROM TO`: moves a library between SQLite and PostgreSQL.
struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        _superCommandName: "passconduit",
        abstract: "Move a pass library between a file (SQLite) and a PostgreSQL server.",
        subcommands: [Copy.self])

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
                let outcome: String = try LibraryCall.run { [options] in
                    guard LibraryRoot.isServer(source) || FileManager.default.fileExists(atPath: source) else {
                        throw LibraryError(.notFound, "there is no library to copy from", path: source)
                    }
                    let from = try await LibraryRoot.open(source, options: options)
                    let to = try await LibraryRoot.open(target, options: options)
                    defer { Task { await from.close(); await to.close() } }
                    let problems = try await from.check(verifyBytes: true)
                    guard problems.isEmpty else {
                        throw LibraryError(.notALibrary, "copy: the library to copy from is not sound: \(problems.prefix(3).joined(separator: "; "))",
                                           path: source)
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
                            path: target)
                    }
                    let targetProblems = try await to.check(verifyBytes: true)
                    guard targetProblems.isEmpty else {
                        throw LibraryError(.io, "copy: the copy does not check: \(targetProblems.prefix(3).joined(separator: "; "))", path: target)
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
