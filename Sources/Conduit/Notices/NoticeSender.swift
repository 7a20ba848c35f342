import Foundation
import PassStore
import WalletPass

/// One round of notices for one library (issue 43 item 2): records the reminders now due, then
/// hands each notice that is due and not yet sent on a channel to that channel — each claimed in
/// the library before it is sent, so it goes out at most once per channel whatever else runs at
/// the same time. A channel that fails gives its claim back: the notice stays pending and the
/// next round tries again. Quiet hours hold every notice until they end.
package struct NoticeSender: Sendable {
    package var settings: NoticeSettings
    /// The owner's address (the library's mailbox, or `[notices] mail-to`); nil: no mail.
    package var mailTo: String?
    /// `[serve] public-url`, for the link to the pass's page.
    package var publicURL: String?
    package var calendar: Calendar = .current
    /// Runs a program with `input` on its standard input; its exit status (`sendmail`).
    package var run: @Sendable (_ program: String, _ arguments: [String], _ input: [UInt8]) throws -> Int32 = NoticeSender.spawn
    /// Called after a desktop notification that offers "Open the card" (its `default` action)
    /// was shown, with its id and the pass's SHA-256: the CLI starts the watcher that opens the
    /// card when the notification is clicked. Nil: the notification offers no action.
    package var desktopOpen: (@Sendable (_ notification: UInt32, _ sha256: String) -> Void)?
    /// Runs a program and returns its exit status and standard output (`gdbus call` answers
    /// with the notification's id).
    package var runForOutput: @Sendable (_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) = NoticeSender.spawnForOutput
    /// The chat channel: hands a notice to the chat bot that asked (`notices --send --chat`),
    /// which sends it as a direct message. Nil: no chat channel.
    package var chat: (@Sendable (Notice) throws -> Void)?
    /// Limits for reading a pass's pass.json (its departure, event start and relevant dates).
    package var limits = PassLimits()
    /// Most notices sent per channel in one round (the rest wait for the next).
    package var maxPerRound = 100

    package init(settings: NoticeSettings, mailTo: String?, publicURL: String?) {
        self.settings = settings
        self.mailTo = mailTo
        self.publicURL = publicURL
    }

    /// What one round did.
    package struct Report: Sendable, Equatable {
        package var reminders = 0
        package var sent: [Notice.Channel: Int] = [:]
        /// Due notices held by the quiet hours.
        package var held = 0
        /// One line per notice a channel could not send (it stays pending).
        package var failures: [String] = []
        /// The library's owner switched notices off (or never on, with `[notices] opt-in`).
        package var optedOut = false

        package init() {}
    }

    package func round(_ library: any PassLibraryBackend, now: Date) async throws -> Report {
        var report = Report()
        guard settings.enabled else { return report }
        // The library's own choice (web Settings) over the host's: switched off, it is sent
        // nothing and no reminder is made; its lead times over the config's.
        let own = try await library.noticePreferences()
        guard own.enabled ?? !settings.optIn else {
            report.optedOut = true
            return report
        }
        let leadTimes = own.leadTimes(over: settings.leadTimes)
        let passes = try await library.passes()
        // Each pass that could remind is read for its departure, event start and relevant dates.
        var moments: [PassID: [Date]] = [:]
        for pass in passes where !pass.voided && leadTimes.lead(for: pass.kind) != nil {
            guard let bytes = try? await library.export(pass.id),
                  let document = PassOpener.document(of: bytes, limits: limits) else { continue }
            moments[pass.id] = NoticeMoments.moments(document, kind: pass.kind)
        }
        let reminders = NoticeRules.reminders(passes, moments: moments, leadTimes: leadTimes, now: now)
        report.reminders = try await library.recordReminders(reminders)
        var channels: [Notice.Channel] = []
        if settings.mail, let mailTo, NoticeSettings.isAddress(mailTo) { channels.append(.mail) }
        if settings.desktop { channels.append(.desktop) }
        if chat != nil { channels.append(.chat) }
        guard !channels.isEmpty else { return report }
        let notices = try await library.notices(since: now.addingTimeInterval(-NoticeRules.maxAge), limit: 1000)
            .filter { $0.due <= now && ($0.kind != .reminder || ($0.eventAt ?? now) > now) }
            .reversed()   // oldest first
        if let quiet = settings.quietHours, quiet.contains(now, calendar: calendar) {
            report.held = notices.filter { notice in channels.contains { !notice.sent.contains($0.rawValue) } }.count
            return report
        }
        for channel in channels {
            var sent = 0
            for notice in notices where !notice.sent.contains(channel.rawValue) && sent < maxPerRound {
                guard try await library.claimNotice(notice.id, channel: channel) else { continue }
                do {
                    try send(notice, on: channel, now: now)
                    sent += 1
                } catch {
                    try await library.releaseNotice(notice.id, channel: channel)
                    report.failures.append("notice \(notice.id) (\(notice.passID)): \(channel.rawValue) not sent, kept for the next run: \(error)")
                }
            }
            if sent > 0 { report.sent[channel] = sent }
        }
        return report
    }

    /// Why a channel could not send.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    func send(_ notice: Notice, on channel: Notice.Channel, now: Date) throws {
        switch channel {
        case .mail:
            guard let mailTo else { return }
            var mail = NoticeMail(to: mailTo, from: settings.mailFrom, publicURL: publicURL)
            mail.timeZone = calendar.timeZone
            let message = mail.message(notice, now: now)
            if let smtp = settings.smtp {
                do {
                    try NoticeSMTP(server: smtp).send(message, from: settings.mailFrom, to: mailTo)
                } catch let failure as NoticeSMTP.Failure {
                    throw Failure(description: failure.description)
                }
                return
            }
            let status: Int32
            do {
                status = try run(settings.sendmail, ["-i", "--", mailTo], message)
            } catch {
                throw Failure(description: "\(settings.sendmail) could not be started (\(error.localizedDescription))")
            }
            guard status == 0 else { throw Failure(description: "\(settings.sendmail) failed (exit status \(status))") }
        case .desktop:
            let words = NoticeWords(notice, timeZone: calendar.timeZone)
            let body = [words.sentence, words.passLine, words.dateLine].compactMap { $0 }.joined(separator: "\n")
            // org.freedesktop.Notifications.Notify(app_name, replaces_id, app_icon, summary, body,
            // actions, hints, expire_timeout), by gdbus: no D-Bus library linked for one call. Each
            // argument is typed GVariant text, so no introspection of the service is needed.
            // With a watcher to act on it, the `default` action (a click on the notification)
            // opens the card; the id in gdbus's answer, "(uint32 7,)", names it to the watcher.
            let sha = desktopOpen == nil ? nil : notice.pass?.sha256
            let arguments = ["call", "--session", "--dest", "org.freedesktop.Notifications",
                             "--object-path", "/org/freedesktop/Notifications",
                             "--method", "org.freedesktop.Notifications.Notify",
                             "'passconduit'", "uint32 0", "''", Self.gvariantString(words.subject), Self.gvariantString(body),
                             sha == nil ? "@as []" : "@as ['default', 'Open the card']", "@a{sv} {}", "int32 -1"]
            let answer: (status: Int32, output: String)
            do {
                answer = try runForOutput("gdbus", arguments)
            } catch {
                throw Failure(description: "gdbus could not be started (\(error.localizedDescription))")
            }
            guard answer.status == 0 else { throw Failure(description: "gdbus failed (exit status \(answer.status)): no notification service on the session bus?") }
            if let sha, let desktopOpen, let id = Self.notificationID(answer.output) { desktopOpen(id, sha) }
        case .chat:
            try chat?(notice)
        case .web:
            return
        }
    }

    /// The id in gdbus's answer to Notify: "(uint32 7,)".
    static func notificationID(_ output: String) -> UInt32? {
        guard let range = output.range(of: "uint32 ") else { return nil }
        return UInt32(output[range.upperBound...].prefix { $0.isNumber })
    }

    /// Runs `program` (looked up in PATH) with `arguments`, nothing on its input; waits for it
    /// and returns its status and standard output (at most 64 KB are kept).
    package static func spawnForOutput(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var output: [UInt8] = []
        while true {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            if output.count < 65_536 { output += chunk.prefix(65_536 - output.count) }
        }
        process.waitUntilExit()
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        return (status, String(decoding: output, as: UTF8.self))
    }

    /// A GVariant text literal of `text` (gdbus parses its arguments as GVariant text).
    static func gvariantString(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'": out += "\\'"
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }

    /// Runs `program` (a path, or a name looked up in PATH) with `arguments`, `input` on its
    /// standard input, its output discarded; waits for it.
    package static func spawn(_ program: String, _ arguments: [String], _ input: [UInt8]) throws -> Int32 {
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try? pipe.fileHandleForWriting.write(contentsOf: Data(input))
        try? pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }
}
