#if canImport(Glibc)
import Glibc
#endif
import DeliveryFilter
import PassStore

/// The end of one message: the delivery filter's plan for it (same scanner, limits, deadline and
/// isolation as `passconduit filter`: a scan-worker process, killed at the deadline) and the replies that carry the plan to the MTA. It never
/// rejects, discards or delays: the plan's "pass it unchanged" is SMFIR_CONTINUE without edits,
/// its "fail closed" is SMFIR_TEMPFAIL (only with `--on-error tempfail`).
struct MilterVerdict {
    var plan: FilterPlan
    var replies: [UInt8]
    var libraries: Int
    var recipients: Int
    var elapsed: Double = 0
    var queueID: String? = nil
    /// Why the message was not scanned at all (`skipped-not-local`), for the log line.
    var skipped: String? = nil

    /// Plans the message. Blocking (the scan): runs on a scan thread, never on an event loop.
    /// `waited` is the time the message already spent queued for a scan thread: it comes out of
    /// the deadline, so a busy daemon still answers within it.
    static func decide(_ message: MilterMessage, settings: MilterSettings, pool: ScanWorkerPool, leadingSpace: Bool,
                       canEdit: Bool, waited: Double) -> MilterVerdict {
        var options = settings.filter
        options.failClosed = settings.onError == .tempfail
        options.headers = options.headers && canEdit
        var recipients = message.recipients
        if let domains = settings.localDomains {
            recipients = recipients.filter { MilterAccess.isLocal($0, domains: domains) }
            if recipients.isEmpty && message.recipientCount > 0 {
                // Outbound or relayed mail: not ours to scan or to mark. Left as it came.
                var plan = FilterPlan(byteCount: message.byteCount)
                plan.output = .unchanged
                var verdict = MilterVerdict(plan: plan, replies: MilterSession.packet(.continue), libraries: 0,
                                            recipients: message.recipientCount)
                verdict.queueID = message.queueID
                verdict.skipped = "skipped-not-local"
                return verdict
            }
        }
        let libraries = LibraryMap(rule: settings.libraryMap, recipientDelimiter: settings.recipientDelimiter).libraries(for: recipients)
        // The shared header may carry a library's state only when every copy goes to that library.
        var shared = false
        if libraries.count == 1 {
            if case .shared = settings.libraryMap { shared = true } else { shared = message.recipientCount == 1 }
        }
        var plan: FilterPlan
        if let problem = message.problem {
            plan = FilterPlan(byteCount: message.byteCount)
            plan.error = FilterError(.spoolFailed, detail: problem)
            plan.output = options.failClosed ? .nothing : .unchanged
        } else {
            let filter = DeliveryFilter(options: options)
            let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, options.deadlineSeconds - waited) * 1000))
            var notes: [FilterLibraryNote] = []
            plan = filter.plan(message.spool) { bytes in
                pool.scanNoted(MilterScanRequest.encode(libraries: libraries, sharedLibrary: shared, message: bytes), deadline: deadline)
                    .map { outcome in
                        notes = outcome.libraries
                        return outcome.reports
                    }
            }
            plan.libraries = notes
            plan.byteCount = message.byteCount
            if plan.error?.messageUnavailable == true && !options.failClosed { plan.output = .unchanged }
        }
        // Forged fields of our names go on every path that accepts the message.
        let removals = options.headers ? message.ownFields : []
        var verdict = MilterVerdict(plan: plan, replies: replies(for: plan, leadingSpace: leadingSpace, unscannedRemovals: removals),
                                    libraries: libraries.count, recipients: message.recipientCount)
        verdict.queueID = message.queueID
        if plan.notice { verdict.skipped = "skipped-notice" }
        return verdict
    }

    /// The SMTP reply when a library error makes the message wait (`--on-library-error tempfail`).
    static let libraryUnavailableReply = "451 4.3.0 pass library unavailable"


    /// The answer to a message the daemon lets through without its scan (it is stopping, or its
    /// scan threads are gone): the forged fields of our names removed and the message accepted
    /// unchanged, or SMFIR_TEMPFAIL with --on-error tempfail.
    static func unscannedReplies(removals: [HeaderEdits.Removal], onError: MilterSettings.OnError, leadingSpace: Bool) -> [UInt8] {
        if onError == .tempfail { return MilterSession.packet(.tempfail) }
        var plan = FilterPlan(byteCount: 0)
        plan.output = .unchanged
        return replies(for: plan, leadingSpace: leadingSpace, unscannedRemovals: removals)
    }

    /// Header changes, then the final answer. Removals go first and from the last occurrence
    /// up, so every index still names the field it named when the message arrived, whichever
    /// way the MTA counts fields already removed; our fields follow at the top, in order.
    static func replies(for plan: FilterPlan, leadingSpace: Bool, unscannedRemovals: [HeaderEdits.Removal] = []) -> [UInt8] {
        var out: [UInt8] = []
        switch plan.output {
        case .nothing:
            if plan.error?.isLibraryError == true {
                return MilterSession.packet(.replyCode, Array(libraryUnavailableReply.utf8) + [0])
            }
            return MilterSession.packet(.tempfail)
        case .unchanged:
            for removal in unscannedRemovals.reversed() {
                out += MilterSession.packet(.changeHeader, MilterReplyEncoder.headerPayload(
                    index: UInt32(clamping: removal.occurrence), name: removal.name, value: []))
            }
        case .rewritten(let edits, _):
            for removal in edits.remove.reversed() {
                out += MilterSession.packet(.changeHeader, MilterReplyEncoder.headerPayload(
                    index: UInt32(clamping: removal.occurrence), name: removal.name, value: []))
            }
            for (index, field) in edits.insert.enumerated() {
                // The writer's folds as LF + space; the MTA adds the space after the colon
                // unless the leading-space step was negotiated.
                var value = field.foldedValue(lineEnding: [10])
                if !leadingSpace, value.first == 0x20 { value.removeFirst() }
                out += MilterSession.packet(.insertHeader, MilterReplyEncoder.headerPayload(
                    index: UInt32(index), name: field.name, value: value))
            }
        }
        return out + MilterSession.packet(.continue)
    }
}
