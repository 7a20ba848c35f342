#if canImport(Glibc)
import Glibc
#endif
import DeliveryFilter
import PassStore
import Support

/// Everything a milter daemon runs with. The scan settings are the delivery filter's own
/// (`FilterOptions`: limits, deadline, headers, offers, updates, config, trust), so `filter` and
/// `milter` scan alike; the rest is the daemon's. SIGHUP rebuilds this from the config file.
package struct MilterSettings: Sendable {
    /// What to tell the MTA when the scan fails or runs out of time.
    package enum OnError: String, Sendable, CaseIterable {
        /// Accept the message unchanged (the default: mail is never delayed by passconduit).
        case accept
        /// SMFIR_TEMPFAIL: the MTA answers the client 4xx and the client retries.
        case tempfail
    }

    package var filter: FilterOptions
    /// How to start a scan worker (`passconduit milter-worker` with the filter options): each scan
    /// runs in one, as `passconduit filter`'s does, killed at the deadline.
    package var worker: ScanWorkerPool.Command
    package var libraryMap: LibraryMap.Rule = .headersOnly
    /// Postfix's `recipient_delimiter`: `alice+travel@` uses alice's library (nil: none).
    package var recipientDelimiter: String? = nil
    package var onError: OnError = .accept
    /// Seconds a session may stay silent (between packets, or before its first) before it is closed.
    package var sessionTimeoutSeconds: Double = 300
    /// Sessions served at once; a connection past this is closed at once (the MTA then applies
    /// its `milter_default_action`).
    package var maxSessions = 512
    /// Message bytes held in memory per session before spooling to a temporary file.
    package var memoryBytesPerMessage = 1 << 20
    /// Recipients remembered per message for their libraries.
    package var maxRecipients = 1000
    /// Scans run at once (each on its own thread); the rest wait their turn inside the deadline.
    package var scanThreads = 4
    /// The Unix socket's mode and group (clamav-milter's MilterSocketMode/MilterSocketGroup):
    /// 0660 and the daemon's own group unless given, so the MTA's user must share that group.
    package var socketMode: mode_t = 0o660
    package var socketGroup: gid_t? = nil
    /// The Unix socket's owner (`--user`: the user the daemon becomes; nil: the daemon's own).
    package var socketOwner: uid_t? = nil
    /// Clients other than loopback an inet listener serves (`--allow ADDR[/BITS]`); every other
    /// one is refused at connect. A Unix socket is guarded by its mode and group instead.
    package var allowedClients: [AddressRange] = []
    /// Mail for these domains (lower case) is scanned; a message for none of them (outbound or
    /// relayed) is left untouched: no scan, no header change. nil: every domain is local.
    package var localDomains: Set<String>? = nil
    /// The resolved process environment (HOME, XDG, TMPDIR) the scan's setup reads.
    package var environment: [String: String]

    package init(filter: FilterOptions, environment: [String: String], worker: ScanWorkerPool.Command) {
        self.filter = filter
        self.environment = environment
        self.worker = worker
    }

    var sessionLimits: MilterSession.Limits {
        var l = MilterSession.Limits()
        // The scan cap + 1 byte: enough for the plan to see an oversize message as oversize.
        l.keepBytes = filter.maxScanBytes < Int.max ? filter.maxScanBytes + 1 : Int.max
        l.memoryBytes = memoryBytesPerMessage
        l.maxRecipients = maxRecipients
        l.temporaryDirectory = environment["TMPDIR"]
        return l
    }
}
