import MailMIME
import WalletPass

/// Every bound passconduit applies to untrusted input, in one value: the MIME parser's
/// (`MIMELimits`), and the delivery filter's. Defaults are sensible; `Config` overrides them.
/// Each limit names the attack it stops, and a tripped limit names itself and its value.
package struct Limits: Sendable, Equatable {
    /// Nesting depth, part count, header length and message size for the MIME parser and
    /// the mailbox readers (deep multiparts, millions of parts, endless headers).
    package var mime: MIMELimits = .default

    /// Archive size, entry count and size, unpacked total, compression ratio, JSON depth and
    /// bundle members for opening a pass (zip bombs, 100 000-entry archives, deep JSON).
    package var pass: PassLimits = .default

    /// The delivery filter passes messages larger than this through unscanned (still read to
    /// EOF): a 1 GB message must not hold up delivery or memory. Default 25 MB.
    package var filterMaxMessageBytes: Int = 25 * 1024 * 1024

    /// The delivery filter stops scanning after this many seconds and passes the message
    /// through: Dovecot kills a filter at 10 s and a hostile message must not stall a queue.
    package var filterDeadlineSeconds: Double = 5

    /// How much of a message's start the delivery filter searches for its header block (our
    /// fields and forged ones). A header block longer than this (an attack, not mail) keeps any
    /// forged fields past it; ours are still on top. 1 MiB.
    package var filterHeaderScanBytes: Int = 1 << 20

    /// The delivery filter holds a message up to this size in memory and spills a larger one to
    /// a private temporary file: a 1 GB message costs a few megabytes. 4 MiB.
    package var filterSpoolMemoryBytes: Int = 4 << 20

    /// The most a scan worker's reply may hold: a confused worker must not make the filter
    /// allocate without bound. 1 MiB.
    package var filterReportBytes: Int = 1 << 20

    /// At most this many `X-Passconduit-Pass` lines per message (a message with 10 000 passes
    /// gets the summary and the first ones).
    package var filterMaxPassHeaders: Int = 32

    /// How many decoded bytes of a part are handed to libmagic, and how many bytes of an input
    /// are read before deciding what it is (a message, an mbox, a pass). Content sniffing needs
    /// only the first bytes; a larger window would decode more of every zip-looking attachment.
    /// At least `minimumSniffBytes`.
    package var sniffBytes: Int = 64 * 1024

    /// A header line, a From_ line or a zip signature shows within this many bytes.
    package static let minimumSniffBytes = 4096

    /// Attributes, attachments and bytes read from a TNEF `winmail.dat` (millions of tiny
    /// attributes, property counts near 2^32).
    package var tnef: TNEFLimits = .default

    /// How many wrappers deep a pass is looked for: a `winmail.dat` holding a zip holding a
    /// pass is 2 (a TNEF inside a TNEF inside … must end somewhere).
    package var maxWrapperDepth: Int = 3

    package init() {}
    package static let `default` = Limits()
}
