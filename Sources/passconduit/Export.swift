import ArgumentParser
import Conduit
import Foundation
import PassStore
import WalletPass

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        _superCommandName: "passconduit",
        abstract: "Write passes' original bytes: one .pkpass, a .pkpasses backup, or a scrubbed copy.",
        discussion: """
        One pass is written as its original .pkpass, byte-identical to the one that was added, so \
        its signature still verifies. Several passes, --all, or an output file ending in .pkpasses \
        give a .pkpasses bundle of the original bytes (Wallet, KDE Itinerary and FossWallet open \
        it); "passconduit add FILE.pkpasses" restores it into a library: passes already there stay, \
        newer versions update them.

        --scrub writes a copy of one pass for a bug report. Replaced by placeholders: field \
        values (attributed values keep their tags and attributes, a link's address is \
        replaced), barcode messages and alt texts (same length and kinds of characters), the \
        serial number, authentication token, grouping identifier, description, logo text and \
        event logo text, the relevant texts of locations and beacons, coordinates (0, 0), every \
        date (2001-01-01 in the same shape; an expiry still to come 2099-01-01), URLs, contact \
        links, the NFC message, the values in userInfo, semantics, upcomingPassInformation \
        (names, dates, venues, seats, links, image addresses, field values), featuredActions \
        (their types stay) and any key passconduit does not know, and their translations in \
        pass.strings. Kept: the organization name, labels, change messages, \
        keys, styles, colours, barcode formats, beacon identifiers, file names, images, sizes \
        and each pass.strings file's encoding (UTF-16 stays UTF-16 with its byte-order mark). \
        The signature is removed and the zip's comment says so: a scrubbed copy opens with "no \
        signature" and can never pass for the original. Images are kept as they are: look at \
        them before you share the copy.

        Examples:
          passconduit export 3fa2c1 -o ticket.pkpass
          passconduit export pass.org.example.event/EVT-1 > ticket.pkpass
          passconduit export --all -o backup.pkpasses
          passconduit export 3fa2c1 9b07de -o trip.pkpasses
          passconduit export 3fa2c1 --scrub -o for-bug-report.pkpass
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "Export every pass in the library as a .pkpasses bundle.")
    var all = false

    @Flag(name: .long, help: "Write a copy without personal values and without its signature, for a bug report.")
    var scrub = false

    @Argument(help: "The passes: type/serial or a SHA-256 prefix.")
    var ids: [String] = []

    func validate() throws {
        if global.json {
            throw ValidationError("--json: export writes the .pkpass bytes, not JSON. Use \"passconduit show --json\" for the pass as JSON.")
        }
        if all && !ids.isEmpty { throw ValidationError("Give either --all or pass IDs, not both.") }
        if !all && ids.isEmpty { throw ValidationError("Name the pass to export (type/serial or a SHA-256 prefix), or give --all.") }
        if scrub && (all || ids.count != 1) { throw ValidationError("--scrub writes one pass: name exactly one.") }
        if scrub, let output, output.lowercased().hasSuffix(".pkpasses") {
            throw ValidationError("--scrub writes one pass, a .pkpass: name the file \(String(output.dropLast("pkpasses".count)))pkpass.")
        }
    }

    /// Several passes, --all, or a `.pkpasses` file name make a bundle.
    var wantsBundle: Bool {
        all || ids.count > 1 || (output?.lowercased().hasSuffix(".pkpasses") ?? false)
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let library = try context.library(reading: true)
            if scrub {
                let passID = try context.resolve(ids[0], in: library)
                let bytes = try LibraryCall.run { try await library.export(passID) }
                let scrubbed: [UInt8]
                do {
                    var scrubber = PassScrubber(limits: context.limits.pass)
                    scrubbed = try scrubber.scrub(bytes)
                } catch let error as PassError {
                    throw CLIError("\(ids[0]): cannot scrub the pass: \(error.message)", status: .dataError)
                }
                try OutputFile.write(scrubbed, to: output, what: "scrubbed pass")
                return .success
            }
            guard wantsBundle else {
                let passID = try context.resolve(ids[0], in: library)
                let bytes = try LibraryCall.run { try await library.export(passID) }
                try OutputFile.write(bytes, to: output, what: "pass")
                return .success
            }
            var chosen: [StoredPass] = []
            if all {
                chosen = try LibraryCall.run { try await library.passes() }
                if chosen.isEmpty { throw CLIError("your library is empty: there is nothing to export", status: .noInput) }
            } else {
                var seen = Set<PassID>()
                for text in ids {
                    let id = try context.resolve(text, in: library)
                    if seen.insert(id).inserted { chosen.append(try context.storedPass(id, named: text, in: library)) }
                }
            }
            var members: [PassBundle.Member] = []
            for stored in chosen {
                let bytes = try LibraryCall.run { try await library.export(stored.id) }
                members.append(PassBundle.Member(passTypeIdentifier: stored.id.passTypeIdentifier, sha256: stored.sha256, bytes: bytes))
            }
            let bundle: [UInt8]
            do {
                bundle = try PassBundle.write(members)
            } catch {
                throw CLIError("cannot write the bundle: \(error)", status: .ioError)
            }
            let limit = context.limits.pass.forAddingOnPurpose.maxBundleMembers
            if members.count > limit {
                Terminal.warn("the bundle holds \(members.count) passes; \"add\" reads at most \(limit) from one bundle "
                    + "unless max-pass-entries is raised in the config's [limits]")
            }
            try OutputFile.write(bundle, to: output, what: "bundle")
            if output != nil && output != "-" {
                Terminal.warn("exported \(members.count) \(members.count == 1 ? "pass" : "passes") to \(output!).")
            }
            return .success
        }
    }
}
