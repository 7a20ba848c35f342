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

    /// Plans the message. Blocking (the scan): runs on a scan thread, never on an event loop.
    /// `waited` is the time the message already spent queued for a scan thread: it comes out of
    /// the deadline, so a busy daemon still answers within it.
    static func decide(_ message: MilterMessage, settings: MilterSettings, pool: ScanWorkerPool, leadingSpace: Bool,
                       canEdit: Bool, waited: Double) -> MilterVerdict {
        var options = settings.filter
        options.failClosed = settings.onError == .tempfail
        options.headers = options.headers && canEdit
        let libraries = LibraryMap(rule: settings.libraryMap).libraries(for: message.recipients)
        var plan: FilterPlan
        if let problem = message.problem {
            plan = FilterPlan(byteCount: message.byteCount)
            plan.error = FilterError(.spoolFailed, detail: problem)
            plan.output = options.failClosed ? .nothing : .unchanged
        } else {
            let filter = DeliveryFilter(options: options)
            let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, options.deadlineSeconds - waited) * 1000))
            plan = filter.plan(message.spool) { bytes in
                pool.scan(MilterScanRequest.encode(libraries: libraries, message: bytes), deadline: deadline)
            }
            plan.byteCount = message.byteCount
            if plan.error?.messageUnavailable == true && !options.failClosed { plan.output = .unchanged }
        }
        return MilterVerdict(plan: plan, replies: replies(for: plan, leadingSpace: leadingSpace),
                             libraries: libraries.count, recipients: message.recipientCount)
    }

    /// Header changes, then the final answer. Removals go first and from the last occurrence
    /// up, so every index still names the field it named when the message arrived, whichever
    /// way the MTA counts fields already removed; our fields follow at the top, in order.
    static func replies(for plan: FilterPlan, leadingSpace: Bool) -> [UInt8] {
        var out: [UInt8] = []
        switch plan.output {
        case .nothing:
            return MilterSession.packet(.tempfail)
        case .unchanged:
            break
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
