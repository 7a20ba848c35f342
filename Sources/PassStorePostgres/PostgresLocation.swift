import Foundation
import PassStore
#if canImport(Glibc)
import Glibc
#endif

/// A `--library postgresql://…` value read by libpq's URI rules: where the server is (a host and
/// port, or a Unix socket folder), which database, which role and password, how TLS is used.
/// Also whose library in that database (`library_user`, passconduit's own parameter).
///
/// `postgresql://[user[:password]@][host][:port][/dbname][?param=value&…]` (or `postgres://`);
/// a host may be percent-encoded (`%2Frun%2Fpostgresql`) or given as `?host=/run/postgresql`.
/// Missing parts come from PGHOST, PGPORT, PGUSER, PGDATABASE, PGSSLMODE, PGPASSWORD and
/// PGPASSFILE, then libpq's defaults (the socket folder /run/postgresql, port 5432, the login
/// name, a database named like the role). A password not given comes from the passfile
/// (~/.pgpass unless PGPASSFILE or `passfile` names one; ignored when group or others can read it).
package struct PostgresLocation: Sendable, Equatable {
    package enum Endpoint: Sendable, Equatable {
        /// A Unix socket folder: the socket is `<folder>/.s.PGSQL.<port>`.
        case socket(folder: String)
        case tcp(host: String)
    }

    package enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    package var endpoint: Endpoint
    package var port: Int
    package var role: String
    package var password: String?
    package var database: String
    package var sslMode: SSLMode
    /// `sslrootcert`: trusted roots for verify-ca / verify-full (default: the system's).
    package var sslRootCert: String?
    package var connectTimeout: Int?
    package var applicationName: String?
    /// Whose library (the `library_user` parameter), if the location names one.
    package var libraryUser: String?

    /// Whether `text` is a PostgreSQL location rather than a library file path.
    package static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// The socket file for a socket endpoint.
    package var socketPath: String? {
        guard case .socket(let folder) = endpoint else { return nil }
        return (folder.hasSuffix("/") ? folder : folder + "/") + ".s.PGSQL.\(port)"
    }

    /// The location as a person should read it in a message: never the password.
    package var display: String {
        let db = "/" + Self.percentEncoded(database)
        switch endpoint {
        case .socket(let folder):
            return "postgresql://\(Self.percentEncoded(role))@\(db)?host=\(folder)" + (port == 5432 ? "" : "&port=\(port)")
        case .tcp(let host):
            let shown = host.contains(":") ? "[\(host)]" : host
            return "postgresql://\(Self.percentEncoded(role))@\(shown)\(port == 5432 ? "" : ":\(port)")\(db)"
        }
    }

    /// Parses `text`; a malformed location is a `LibraryError.Kind.cannotCreate` naming it
    /// without its password.
    package init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let shown = LibraryLocation.withoutPassword(text)
        func bad(_ why: String) -> LibraryError {
            LibraryError(.cannotCreate, "is not a PostgreSQL location libpq would accept: \(why)", path: shown)
        }
        var rest: Substring
        if text.hasPrefix("postgresql://") { rest = text.dropFirst("postgresql://".count) }
        else if text.hasPrefix("postgres://") { rest = text.dropFirst("postgres://".count) }
        else { throw bad("it must start with postgresql://") }

        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") { query = rest[rest.index(after: q)...]; rest = rest[..<q] }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") { path = rest[rest.index(after: slash)...]; rest = rest[..<slash] }
        var userInfo: Substring? = nil
        if let at = rest.lastIndex(of: "@") { userInfo = rest[..<at]; rest = rest[rest.index(after: at)...] }

        var params: [String: String] = [:]
        if let userInfo {
            if let colon = userInfo.firstIndex(of: ":") {
                params["user"] = try Self.decode(userInfo[..<colon], bad)
                params["password"] = try Self.decode(userInfo[userInfo.index(after: colon)...], bad)
            } else {
                params["user"] = try Self.decode(userInfo, bad)
            }
        }
        // host[:port], with [ipv6] in brackets. libpq's lists of hosts (a,b) are not supported.
        var hostPart = rest
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw bad("an IPv6 address lacks its “]”") }
            params["host"] = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
            hostPart = hostPart[hostPart.index(after: close)...]
            if hostPart.hasPrefix(":") { params["port"] = String(hostPart.dropFirst()) }
            else if !hostPart.isEmpty { throw bad("unexpected text after the IPv6 address") }
        } else {
            if let colon = hostPart.lastIndex(of: ":") {
                params["port"] = String(hostPart[hostPart.index(after: colon)...])
                hostPart = hostPart[..<colon]
            }
            if !hostPart.isEmpty { params["host"] = try Self.decode(hostPart, bad) }
        }
        guard !(params["host"] ?? "").contains(",") else { throw bad("several hosts are not supported; name one") }
        if !path.isEmpty { params["dbname"] = try Self.decode(path, bad) }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let eq = pair.firstIndex(of: "=") else { throw bad("the parameter “\(pair)” has no value") }
            let key = try Self.decode(pair[..<eq], bad)
            let value = try Self.decode(pair[pair.index(after: eq)...], bad)
            guard Self.knownParameters.contains(key) else {
                throw bad("unknown parameter “\(key)” (known: \(Self.knownParameters.sorted().joined(separator: ", ")))")
            }
            params[key] = value
        }

        let env = environment
        let host = params["host"] ?? env["PGHOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/postgresql"
        let portText = params["port"] ?? env["PGPORT"] ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else { throw bad("the port “\(portText)” is not a number from 1 to 65535") }
        self.port = port
        endpoint = host.hasPrefix("/") ? .socket(folder: host) : .tcp(host: host)
        let login = Self.loginName(env)
        role = params["user"] ?? env["PGUSER"] ?? login
        guard !role.isEmpty else { throw bad("no role name (give user@ in the location, or PGUSER)") }
        database = params["dbname"] ?? env["PGDATABASE"] ?? role
        let mode = params["sslmode"] ?? env["PGSSLMODE"] ?? "prefer"
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw bad("sslmode “\(mode)” is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.sslMode = sslMode
        sslRootCert = params["sslrootcert"] ?? env["PGSSLROOTCERT"]
        if let t = params["connect_timeout"] ?? env["PGCONNECT_TIMEOUT"] {
            guard let seconds = Int(t), seconds >= 0 else { throw bad("connect_timeout “\(t)” is not a whole number of seconds") }
            connectTimeout = seconds == 0 ? nil : max(2, seconds)   // libpq: 0 is no limit, less than 2 counts as 2
        }
        applicationName = params["application_name"] ?? env["PGAPPNAME"]
        libraryUser = params["library_user"]
        password = params["password"] ?? env["PGPASSWORD"]
        if password == nil {
            let file = params["passfile"] ?? env["PGPASSFILE"] ?? Self.homeFolder(env).map { $0 + "/.pgpass" }
            if let file {
                password = Self.passfilePassword(file, host: host, port: port, database: database, role: role)
            }
        }
    }

    /// libpq's connection parameters this reader understands, plus passconduit's `library_user`.
    static let knownParameters: Set<String> = [
        "host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "passfile",
        "connect_timeout", "application_name", "library_user",
    ]

    private static func decode(_ s: Substring, _ bad: (String) -> LibraryError) throws -> String {
        guard let decoded = String(s).removingPercentEncoding else { throw bad("“\(s)” is not valid percent-encoding") }
        return decoded
    }

    static func percentEncoded(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// The login name: the passwd entry of the real user id, else USER / LOGNAME.
    package static func loginName(_ env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name {
            let text = String(cString: name)
            if !text.isEmpty { return text }
        }
        return env["USER"] ?? env["LOGNAME"] ?? ""
    }

    static func homeFolder(_ env: [String: String]) -> String? {
        if let home = env["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return nil
    }

    /// The password of the first matching `hostname:port:database:username:password` line, as
    /// libpq reads the passfile: `*` matches anything, `\` escapes `:` and `\`; a socket
    /// connection matches `localhost` as well as its folder. A file that group or others may read
    /// is ignored, as libpq does.
    package static func passfilePassword(_ file: String, host: String, port: Int, database: String, role: String) -> String? {
        var info = stat()
        guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o077 == 0,
              let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        let hosts: Set<String> = host.hasPrefix("/") ? [host, "localhost"] : [host]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            guard !trimmed.hasPrefix("#") else { continue }
            var fields: [String] = []
            var current = ""
            var escaped = false
            for ch in trimmed {
                if escaped { current.append(ch); escaped = false }
                else if ch == "\\" { escaped = true }
                else if ch == ":" && fields.count < 4 { fields.append(current); current = "" }
                else { current.append(ch) }
            }
            fields.append(current)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: Set<String>) -> Bool { field == "*" || values.contains(field) }
            if matches(fields[0], hosts), matches(fields[1], [String(port)]), matches(fields[2], [database]),
               matches(fields[3], [role]) {
                return fields[4]
            }
        }
        return nil
    }
}
