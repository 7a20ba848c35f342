/// The Sendmail milter protocol, version 6, as Postfix and Sendmail speak it (libmilter's
/// `mfdef.h`). A packet is a 4-byte big-endian length, then a command byte, then length-1 bytes
/// of payload. The MTA sends commands (`SMFIC_*`); the filter answers with replies (`SMFIR_*`).
enum MilterProtocol {
    /// The protocol version this filter speaks (Postfix ≥ 2.6 and Sendmail 8.14 offer 6).
    static let version: UInt32 = 6
    /// The largest packet accepted: a body chunk is at most 65 535 bytes (`MILTER_CHUNK_SIZE`)
    /// unless the MTA is asked for bigger ones (we never ask), plus the command byte and room for
    /// a header field or recipient Postfix allows. A length beyond this (or 0) is a lie: the
    /// session ends and the MTA applies its default action.
    static let maxPacketBytes = 64 * 1024 + 1024

    /// Commands from the MTA.
    enum Command: UInt8 {
        case abort = 0x41        // 'A' SMFIC_ABORT: forget the current message
        case body = 0x42         // 'B' SMFIC_BODY: a body chunk
        case connect = 0x43      // 'C' SMFIC_CONNECT
        case macro = 0x44        // 'D' SMFIC_MACRO: macros for the next command (no reply)
        case endOfMessage = 0x45 // 'E' SMFIC_BODYEOB
        case helo = 0x48         // 'H' SMFIC_HELO
        case quitNewConnection = 0x4B // 'K' SMFIC_QUIT_NC: connection over, the socket is reused
        case header = 0x4C       // 'L' SMFIC_HEADER: name NUL value NUL
        case mail = 0x4D         // 'M' SMFIC_MAIL
        case endOfHeaders = 0x4E // 'N' SMFIC_EOH
        case optionNegotiation = 0x4F // 'O' SMFIC_OPTNEG
        case quit = 0x51         // 'Q' SMFIC_QUIT
        case recipient = 0x52    // 'R' SMFIC_RCPT: args NUL-separated, the first is <address>
        case data = 0x54         // 'T' SMFIC_DATA
        case unknown = 0x55      // 'U' SMFIC_UNKNOWN: an SMTP command the MTA did not know
    }

    /// Replies to the MTA.
    enum Reply: UInt8 {
        case accept = 0x61        // 'a' SMFIR_ACCEPT
        case `continue` = 0x63    // 'c' SMFIR_CONTINUE
        case changeHeader = 0x6D  // 'm' SMFIR_CHGHEADER: index(4) name NUL value NUL; empty value deletes
        case insertHeader = 0x69  // 'i' SMFIR_INSHEADER: index(4) name NUL value NUL
        case optionNegotiation = 0x4F // 'O'
        case tempfail = 0x74      // 't' SMFIR_TEMPFAIL
        case progress = 0x70      // 'p' SMFIR_PROGRESS
        case replyCode = 0x79     // 'y' SMFIR_REPLYCODE: an SMTP reply ("451 4.3.0 …") NUL
    }

    /// What the filter may do to a message (`SMFIF_*`). We ask only to add and change headers.
    struct Actions: OptionSet {
        let rawValue: UInt32
        static let addHeaders = Actions(rawValue: 0x01)     // SMFIF_ADDHDRS (also INSHEADER)
        static let changeHeaders = Actions(rawValue: 0x10)  // SMFIF_CHGHDRS
        static let wanted: Actions = [.addHeaders, .changeHeaders]
    }

    /// Stages the filter skips and replies it does not send (`SMFIP_*`). Each bit is set only when
    /// the MTA offered it in its SMFIC_OPTNEG.
    struct Steps: OptionSet {
        let rawValue: UInt32
        static let noConnect = Steps(rawValue: 0x01)
        static let noHelo = Steps(rawValue: 0x02)
        static let noMail = Steps(rawValue: 0x04)
        static let noRecipient = Steps(rawValue: 0x08)
        static let noBody = Steps(rawValue: 0x10)
        static let noHeaders = Steps(rawValue: 0x20)
        static let noEndOfHeaders = Steps(rawValue: 0x40)
        static let noReplyHeader = Steps(rawValue: 0x80)
        static let noUnknown = Steps(rawValue: 0x100)
        static let noData = Steps(rawValue: 0x200)
        static let skip = Steps(rawValue: 0x400)
        static let noReplyConnect = Steps(rawValue: 0x1000)
        static let noReplyHelo = Steps(rawValue: 0x2000)
        static let noReplyMail = Steps(rawValue: 0x4000)
        static let noReplyRecipient = Steps(rawValue: 0x8000)
        static let noReplyData = Steps(rawValue: 0x10000)
        static let noReplyUnknown = Steps(rawValue: 0x20000)
        static let noReplyEndOfHeaders = Steps(rawValue: 0x40000)
        static let noReplyBody = Steps(rawValue: 0x80000)
        /// Header values arrive (and are sent) with their leading space: the exact bytes.
        static let headerLeadingSpace = Steps(rawValue: 0x100000)

        /// What passconduit asks for: no connect, HELO, MAIL, DATA or unknown-command stages
        /// (it needs recipients, headers and the body), no replies to recipients, headers,
        /// end of headers and body chunks, and header values with their leading space.
        static let wanted: Steps = [.noConnect, .noHelo, .noMail, .noUnknown, .noData,
                                    .noReplyRecipient, .noReplyHeader, .noReplyEndOfHeaders, .noReplyBody,
                                    .headerLeadingSpace]
    }
}
