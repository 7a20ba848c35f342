import Foundation
import PassStore
import PostgresNIO

/// A statement was not sent: its connection had already closed (the session ended).
struct ConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the connection had closed" }
}

/// What a postgres-nio error means for the library: whether trying again can help, and the
/// sentence for the person (the server's own message, never the password).
struct PostgresFailure {
    var sqlState: String?
    var serverMessage: String?
    var code: PSQLError.Code?
    var underlying: String?

    init(_ error: any Error) {
        if error is ConnectionClosed {
            code = .serverClosedConnection
            underlying = "\(error)"
        } else if let e = error as? PSQLError {
            code = e.code
            sqlState = e.serverInfo?[.sqlState]
            serverMessage = e.serverInfo?[.message]
            underlying = e.underlying.map { "\($0)" }
        } else {
            underlying = "\(error)"
        }
    }

    /// The connection is gone (server shut down, backend terminated, network cut).
    var connectionLost: Bool {
        if let code, code == .serverClosedConnection || code == .clientClosedConnection || code == .connectionError
            || code == .uncleanShutdown { return true }
        if let sqlState, sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03" { return true }
        return false
    }

    var lockTimeout: Bool { sqlState == "55P03" }

    /// Serialization failure, deadlock, lock wait, a lost connection, a server starting up.
    var retryable: Bool {
        if connectionLost || lockTimeout { return true }
        if let sqlState, sqlState == "40001" || sqlState == "40P01" { return true }
        return false
    }

    var summary: String {
        if let serverMessage { return "the server said: \(serverMessage)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "") }
        // postgres-nio's description of a PSQLError is a fixed generic sentence, and its code and
        // underlying error are Swift names ("connectionError", "ChannelError.ioOnClosedChannel"):
        // a person reads what happened in words.
        let what: String
        switch code {
        case .serverClosedConnection?: what = "the server closed the connection"
        case .uncleanShutdown?: what = "the connection broke off"
        case .clientClosedConnection?: what = "the connection was closed"
        default: what = "the connection failed"
        }
        if let cause = underlying.flatMap(Self.words) { return "\(what): \(cause)" }
        return code == nil && underlying == nil ? "the server could not be used" : what
    }

    /// An underlying error's description as words: the system's text for its errno ("connection
    /// refused"), "the connection was closed" for NIO's closed channel; nil when it says nothing more.
    static func words(_ description: String) -> String? {
        if let range = description.range(of: "errno: "),
           let number = Int32(description[range.upperBound...].prefix(while: \.isNumber)) {
            return String(cString: strerror(number)).lowercased()
        }
        if description.contains("ioOnClosedChannel") || description.contains("alreadyClosed") || description.contains("eof") {
            return "the connection was closed"
        }
        if description.contains("connectTimeout") || description.contains("timeout") { return "no answer in time" }
        // Anything else that reads like a Swift value ("Module.Type.case(…)") is left out.
        if description.contains("(") || description.contains(".") && !description.contains(" ") { return nil }
        return description
    }

    func libraryError(_ name: String, location: String) -> LibraryError {
        switch sqlState {
        case "25006"?:
            return LibraryError(.unavailable, "\(name): the server is read-only (a standby, or default_transaction_read_only); nothing was written", path: location)
        case "28P01"?, "28000"?:
            return LibraryError(.unavailable, "\(name): the server refused the login: \(serverMessage ?? "authentication failed")", path: location)
        case "3D000"?:
            return LibraryError(.cannotCreate, "\(name): \(serverMessage ?? "the database does not exist")", path: location)
        case "42501"?:
            return LibraryError(.cannotCreate, "\(name): the role may not do this: \(serverMessage ?? "permission denied")", path: location)
        case "53100"?:
            return LibraryError(.io, "\(name): the server's disk is full", path: location)
        default:
            break
        }
        if let code, code == .authMechanismRequiresPassword {
            return LibraryError(.unavailable, "\(name): the server asks for a password and none was given (in the location or PGPASSFILE)", path: location)
        }
        if connectionLost || sqlState == nil {
            return LibraryError(.unavailable, "\(name): \(summary); nothing was written", path: location)
        }
        return LibraryError(.io, "\(name): \(summary)", path: location)
    }
}
