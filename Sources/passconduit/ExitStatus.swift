import Support

/// Process exit statuses, from sysexits.h, named once for every command. Only the command line
/// has them: the layers below say what happened (a `Problem.Code`, a plan), and `init(_:)` below
/// is the one place a code becomes a status.
enum ExitStatus: Int32, Sendable {
    case success = 0
    /// `scan` found no pass (grep-style).
    case noPassFound = 1
    case usage = 64        // EX_USAGE
    case dataError = 65    // EX_DATAERR
    case noInput = 66      // EX_NOINPUT
    /// A service cannot start (`send` has no address to listen on).
    case unavailable = 69  // EX_UNAVAILABLE
    case cannotCreate = 73 // EX_CANTCREAT
    case ioError = 74      // EX_IOERR
    case tempFailure = 75  // EX_TEMPFAIL
    /// The process may not do what was asked (`milter --user` when not started as root).
    case noPermission = 77 // EX_NOPERM
    /// The configuration file is broken (the message names file, line and key).
    case configError = 78  // EX_CONFIG
}

extension ExitStatus {
    /// The status a problem stands for: a scanned input's when no pass is found at all (missing
    /// 66, unreadable 74, anything else bad data 65); the milter's start (`--user`/`--group` with
    /// a wrong value 64, a daemon that may not change its user 77, an address or metrics port it
    /// cannot listen on 75 so that the service manager tries again, a log it cannot write as its
    /// user 73); and a milter scan worker's end (a malformed request 65, a host that went away 74).
    init(_ code: Problem.Code) {
        switch code {
        case .inputUnavailable: self = .noInput
        case .inputReadFailed, .outputFailed: self = .ioError
        case .usage: self = .usage
        case .noPermission: self = .noPermission
        case .cannotListen: self = .tempFailure
        case .cannotCreate: self = .cannotCreate
        default: self = .dataError
        }
    }
}
