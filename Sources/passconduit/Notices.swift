import ArgumentParser
import Conduit
import Foundation
import LibraryRoot
import PassStore

struct Notices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notices",
        _superCommandName: "passconduit",
        abstract: "List the notices of changes and coming dates; --send sends those due.",
        discussion: """
        A newer version of a pass whose fields carry the issuer's change message ("Gate \
        changed to B22"), and a voided pass, make a notice, recorded in the library with the \
        change (by update, the filter, add and the web wallet alike). With notices switched \
        on in the config ([notices] enabled = true), reminders are made too, before a pass's \
        departure, event start or date (3 hours for a boarding pass, 24 for an event by \
        default), and --send (and update, after its run) sends each notice that is due: by \
        mail through sendmail, or to [notices] smtp, to the library's owner ([notices] \
        mail-to, or each mailbox of a map), and with [notices] desktop = true as a desktop \
        notification that opens the card when clicked. --chat hands them to a chat bot \
        instead. Each library's owner may switch notices off, and set their own lead times, on \
        the web wallet's Settings page. Each notice goes out at most once per way, however \
        many hosts send; one that could not be sent stays pending for the next run. Quiet \
        hours hold notices until they end. A notice mail carries no pass, barcode or token, \
        and the filter and the milter pass it unscanned.

        Examples:
          passconduit notices
          passconduit notices --send
          passconduit notices --send --library-map '/var/lib/passconduit/%{local}@%{domain}/library.sqlite'
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Make the reminders due and send the notices due (needs [notices] enabled).")
    var send = false

    @Option(name: .long, help: ArgumentHelp("With --send: every library of this map (a gateway's mailboxes), each to its mailbox.", valueName: "template"))
    var libraryMap: String?

    @Flag(name: .long, help: "With --send: hand the due notices to a chat bot instead of mail and desktop: each is claimed once for chat and written as a JSON line; the bot sends it.")
    var chat = false

    @Option(name: .long, help: ArgumentHelp("Give notice ID's chat claim back (the bot could not send it): the next --send --chat hands it out again.", valueName: "id"))
    var release: Int64?

    // The watcher `notices --send` starts for a desktop notification's "Open the card" action
    // (NoticeWatch.swift): not for people, so not in --help.
    @Option(name: .customLong("watch-notification"), help: .hidden)
    var watchNotification: UInt32?

    @Option(name: .customLong("open-pass"), help: .hidden)
    var openPass: String?

    func validate() throws {
        if chat && !send { throw ValidationError("--chat goes with --send") }
        if chat && libraryMap != nil { throw ValidationError("--chat takes one library (--library, --user), not --library-map") }
        if release != nil && send { throw ValidationError("--release and --send exclude each other") }
        if libraryMap != nil {
            if !send { throw ValidationError("--library-map goes with --send") }
            if global.library != nil { throw ValidationError("--library and --library-map exclude each other") }
        }
    }

    func run() throws {
        try Self.exiting {
            if let watchNotification, let openPass { return try Self.watch(watchNotification, open: openPass, global: global) }
            let context = try Context(global)
            if let release {
                let library = try context.library()
                try LibraryCall.run { try await library.releaseNotice(release, channel: .chat) }
                return .success
            }
            if send {
                guard context.config.notices.enabled else {
                    throw CLIError("notices are off: set enabled = true in the [notices] section of the config file", status: .configError)
                }
                if let libraryMap { return try Self.sendMap(libraryMap, context: context, quiet: false) }
                if chat { return try Self.sendChat(context) }
                return try Self.sendOwn(context, quiet: false)
            }
            let library = try context.library(reading: true)
            let now = Date()
            let notices = try LibraryCall.run { try await library.notices(since: now.addingTimeInterval(-NoticeRules.maxAge), limit: 100) }
            for notice in notices where global.json {
                print(JSONOutput.object([
                    ("schema", .int(1)), ("notice", .int(notice.id)), ("kind", .string(notice.kind.rawValue)),
                    ("passTypeIdentifier", .string(notice.passID.passTypeIdentifier)), ("serialNumber", .string(notice.passID.serialNumber)),
                    ("text", .string(NoticeWords(notice).sentence)), ("created", .date(notice.created)), ("due", .date(notice.due)),
                    ("eventAt", .date(notice.eventAt)), ("sent", .array(notice.sent.sorted().map { .string($0) })),
                ]).line)
            }
            for notice in notices where !global.json {
                let words = NoticeWords(notice)
                let sent = notice.sent.sorted().joined(separator: ",")
                print(UpdateOutcomeText.sanitized("\(notice.id)  \(DateText.iso(notice.created))  \(notice.kind.rawValue)"
                      + (sent.isEmpty ? "  pending" : "  sent: \(sent)") + "  \(notice.passID)\n    \(words.sentence)"))
            }
            if notices.isEmpty && !global.json { print("No notices in the last \(Int(NoticeRules.maxAge / 86_400)) days.") }
            return .success
        }
    }

    /// One round on the command's own library, to `[notices] mail-to` (or `--user` when it is an address).
    static func sendOwn(_ context: Context, quiet: Bool) throws -> ExitStatus {
        let library = try context.library()
        let settings = context.config.notices
        let to = settings.mailTo ?? context.options.user.flatMap { NoticeSettings.isAddress($0) ? $0 : nil }
        if settings.mail && to == nil && !quiet {
            Terminal.warn("notices: no address to mail them to: set mail-to in the [notices] section")
        }
        var sender = NoticeSender(settings: settings, mailTo: to, publicURL: context.config.serve.publicURL)
        sender.limits = context.limits.pass
        if settings.desktop { sender.desktopOpen = Self.openWatcher(context.options) }
        let configured = sender
        let report = try LibraryCall.run { try await configured.round(library, now: Date()) }
        return say(report, prefix: "", quiet: quiet)
    }

    /// One round on the command's own library for a chat bot: each due notice is claimed for
    /// chat and written to stdout as a JSON line (what `notices --json` writes, with the subject,
    /// the pass's name and date and its SHA-256); the bot sends it and gives back, with
    /// --release, one it could not send. Mail and desktop are left to their own runs.
    static func sendChat(_ context: Context) throws -> ExitStatus {
        let library = try context.library()
        var settings = context.config.notices
        settings.mail = false
        settings.desktop = false
        var sender = NoticeSender(settings: settings, mailTo: nil, publicURL: context.config.serve.publicURL)
        sender.limits = context.limits.pass
        sender.chat = { notice in
            let words = NoticeWords(notice)
            print(JSONOutput.object([
                ("schema", .int(1)), ("notice", .int(notice.id)), ("kind", .string(notice.kind.rawValue)),
                ("passTypeIdentifier", .string(notice.passID.passTypeIdentifier)), ("serialNumber", .string(notice.passID.serialNumber)),
                ("text", .string(words.sentence)), ("subject", .string(words.subject)),
                ("pass", words.passLine.map { .string($0) } ?? .null), ("date", words.dateLine.map { .string($0) } ?? .null),
                ("sha256", notice.pass.map { .string($0.sha256) } ?? .null),
                ("created", .date(notice.created)), ("due", .date(notice.due)), ("eventAt", .date(notice.eventAt)),
            ]).line)
        }
        let configured = sender
        let report = try LibraryCall.run { try await configured.round(library, now: Date()) }
        return say(report, prefix: "", quiet: true)
    }

    /// One round on every library of the map, each mailed to its mailbox.
    static func sendMap(_ template: String, context: Context, quiet: Bool) throws -> ExitStatus {
        let entries: [LibraryAdmin.Entry]
        do {
            entries = try Blocking.run { try await LibraryAdmin.list(template: template) }
        } catch {
            if let problem = error as? LibraryAdmin.Problem { throw CLIError(problem.description, status: .usage) }
            if let error = error as? LibraryError { throw CLIError(error) }
            throw error
        }
        let server = LibraryMap.isServer(template)
        var status = ExitStatus.success
        for entry in entries {
            let address = NoticeSettings.isAddress(entry.user) ? entry.user : nil
            if address == nil && context.config.notices.mail {
                Terminal.warn("notices: \(entry.user): not a mail address; its notices are not mailed")
            }
            var sender = NoticeSender(settings: context.config.notices, mailTo: address, publicURL: context.config.serve.publicURL)
            sender.limits = context.limits.pass
            let configured = sender
            do {
                let report = try Blocking.run {
                    var options = LibraryOptions()
                    if server { options.user = entry.user }
                    let library = try await LibraryRoot.open(server ? template : entry.location, options: options, create: false)
                    let report: NoticeSender.Report
                    do {
                        report = try await configured.round(library, now: Date())
                    } catch {
                        await library.close()
                        throw error
                    }
                    await library.close()
                    return report
                }
                if say(report, prefix: "\(entry.user): ", quiet: quiet) != .success { status = .tempFailure }
            } catch {
                Terminal.warn("notices: \(entry.user): library not used: \((error as? LibraryError)?.message ?? "\(error)")")
                status = .tempFailure
            }
        }
        return status
    }

    /// Prints what a round did (problems always, on stderr); 75 when a notice stayed pending.
    static func say(_ report: NoticeSender.Report, prefix: String, quiet: Bool) -> ExitStatus {
        for failure in report.failures { Terminal.warn("notices: " + prefix + failure) }
        if report.optedOut {
            if !quiet { print(UpdateOutcomeText.sanitized(prefix + "notices are off for this library (its owner's choice in the web wallet's Settings).")) }
            return .success
        }
        if !quiet {
            let mail = report.sent[.mail] ?? 0, desktop = report.sent[.desktop] ?? 0
            print(UpdateOutcomeText.sanitized(prefix + "\(report.reminders) \(report.reminders == 1 ? "reminder" : "reminders") made, "
                  + "\(mail) sent by mail, \(desktop) to the desktop" + (report.held > 0 ? ", \(report.held) held for the quiet hours" : "") + "."))
        }
        return report.failures.isEmpty ? .success : .tempFailure
    }
}
