import Foundation
import PassStore
import TOMLKit

/// The user's settings from `config.toml` (TOMLKit). Every key is optional; a missing file means
/// the defaults. A broken file is never half-applied: loading fails with a `ConfigError` naming
/// the file, the line and the key. The commented default is `Config/config.toml`.
package struct Config: Sendable, Equatable {
    /// The file the settings came from; nil when no file exists and the defaults apply.
    package var file: String?
    /// `[library] path`: the pass library; nil = `ConfigLocation.defaultLibraryPath`.
    package var libraryPath: String?
    /// `[trust] directories`: extra trust anchors, in addition to the shipped Apple ones.
    package var trustDirectories: [String] = []
    /// `language`: preferred language for pass texts ("de", "fr-CA"); nil = from `LANG`.
    package var language: String?
    /// `[limits]` and `[filter]` caps.
    package var limits: Limits = .default
    /// `[filter]` behaviour.
    package var filter: FilterSettings = .init()
    /// `[milter] library-map`: each recipient's library, as a path template with `%{local}` and
    /// `%{domain}` (`passconduit milter`); nil = no per-recipient libraries.
    package var milterLibraryMap: String?
    /// `[milter] user` and `group`: whom a milter started as root becomes after binding
    /// (`--user`, `--group` win); read at start only.
    package var milterUser: String?
    package var milterGroup: String?
    /// `[serve]`: the web wallet's settings (`passconduit serve`; its flags win).
    package var serve: ServeSettings = .init()
    /// `[notices]`: telling owners of changes and coming dates.
    package var notices: NoticeSettings = .init()

    package init() {}

    /// Largest config file read; a config is a few hundred bytes, a bigger file is a mistake.
    static let maxFileBytes = 1 << 20

    /// Reads the file named by `--config` (it must exist), else the first that exists of
    /// `$XDG_CONFIG_HOME/passconduit/config.toml` (or `~/.config/…`) and
    /// `/etc/passconduit/config.toml`; with neither, the defaults apply.
    package static func load(explicitPath: String?, environment: [String: String]) throws(ConfigError) -> Config {
        let path: String
        if let explicitPath {
            path = explicitPath
        } else {
            guard let found = ConfigLocation.configPathInUse(environment: environment) else { return Config() }
            path = found
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw ConfigError(.unreadable, file: path, message: "the configuration file \(reason)")
        }
        guard data.count <= maxFileBytes else {
            throw ConfigError(.unreadable, file: path, message: "the configuration file is larger than \(maxFileBytes) bytes")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(.syntax, file: path, message: "the configuration file is not UTF-8 text")
        }
        return try parse(text, file: path, environment: environment)
    }

    /// Parses TOML text. Relative paths in it are taken relative to the file's folder.
    /// Every key the parser reads, by section ("" for the top level). A key outside this list is
    /// refused before the section's own parsing, so the list cannot fall behind the code, and
    /// `Config/config.toml` documents each with its default (ConfigTests compares the two).
    package static let keys: [String: [String]] = [
        "": ["language", "library", "trust", "limits", "filter", "milter", "serve", "notices"],
        "library": ["path"],
        "trust": ["directories"],
        "limits": ["max-message-bytes", "max-depth", "max-parts", "max-header-bytes", "sniff-bytes", "max-pass-bytes",
                   "max-pass-entries", "max-entry-bytes", "max-unpacked-bytes", "max-compression-ratio", "max-bundle-members",
                   "max-upcoming-entries"],
        "filter": ["apply-updates", "add-headers", "max-message-bytes", "deadline-seconds", "on-library-error"],
        "milter": ["library-map", "user", "group"],
        "serve": ["listen", "auth", "trusted-proxy", "library-map", "public-url", "tls-cert", "tls-key", "state",
                  "uploads-at-once", "upload-seconds", "head-seconds", "body-seconds"],
        "notices": ["enabled", "opt-in", "mail", "mail-to", "mail-from", "sendmail", "smtp", "desktop", "quiet-hours"]
            + NoticeSettings.leadKeys.map(\.key),
    ]

    package static func parse(_ text: String, file: String, environment: [String: String]) throws(ConfigError) -> Config {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(.syntax, file: file, line: error.source.begin.line, message: error.description)
        } catch {
            throw ConfigError(.syntax, file: file, message: "\(error)")
        }
        var config = Config()
        config.file = file
        let folder = file.lastIndex(of: "/").map { String(file[..<$0]) }
        let reader = Reader(text: text, file: file)

        for (key, value) in table {
            guard Self.keys[""]!.contains(key) else { throw reader.unknown([key]) }
            if let section = Self.keys[key], let subtable = value.table {
                // library_map: the spelling an older release documented.
                for (sub, _) in subtable where !section.contains(sub) && !(key == "milter" && sub == "library_map") {
                    throw reader.unknown([key, sub])
                }
            }
            switch key {
            case "language":
                let language = try reader.string(value, [key])
                config.language = language.isEmpty ? nil : language
            case "library":
                for (sub, item) in try reader.table(value, [key]) {
                    guard sub == "path" else { throw reader.unknown([key, sub]) }
                    let path = try reader.string(item, [key, sub])
                    config.libraryPath = path.isEmpty ? nil
                        : ConfigLocation.expand(path, relativeTo: folder, environment: environment)
                }
            case "trust":
                for (sub, item) in try reader.table(value, [key]) {
                    guard sub == "directories" else { throw reader.unknown([key, sub]) }
                    config.trustDirectories = try reader.strings(item, [key, sub]).map {
                        ConfigLocation.expand($0, relativeTo: folder, environment: environment)
                    }
                }
            case "limits":
                for (sub, item) in try reader.table(value, [key]) {
                    let path = [key, sub]
                    switch sub {
                    case "max-message-bytes": config.limits.mime.maxMessageBytes = try reader.count(item, path)
                    case "max-depth": config.limits.mime.maxDepth = try reader.count(item, path)
                    case "max-parts": config.limits.mime.maxParts = try reader.count(item, path)
                    case "max-header-bytes": config.limits.mime.maxHeaderBytes = try reader.count(item, path)
                    case "sniff-bytes":
                        // The same window tells what an input is (a header line, a From_ line, a zip).
                        let bytes = try reader.count(item, path)
                        guard bytes >= Limits.minimumSniffBytes else {
                            throw reader.fail(path, "must be at least \(Limits.minimumSniffBytes), found \(bytes)")
                        }
                        config.limits.sniffBytes = bytes
                    case "max-pass-bytes": config.limits.pass.maxArchiveBytes = try reader.count(item, path)
                    case "max-pass-entries": config.limits.pass.maxEntries = try reader.count(item, path)
                    case "max-entry-bytes": config.limits.pass.maxEntryBytes = try reader.count(item, path)
                    case "max-unpacked-bytes": config.limits.pass.maxTotalBytes = try reader.count(item, path)
                    case "max-compression-ratio": config.limits.pass.maxCompressionRatio = try reader.count(item, path)
                    case "max-bundle-members": config.limits.pass.maxBundleMembers = try reader.count(item, path)
                    case "max-upcoming-entries": config.limits.pass.maxUpcomingEntries = try reader.count(item, path)
                    default: throw reader.unknown(path)
                    }
                }
            case "filter":
                for (sub, item) in try reader.table(value, [key]) {
                    let path = [key, sub]
                    switch sub {
                    case "apply-updates": config.filter.applyUpdates = try reader.bool(item, path)
                    case "add-headers": config.filter.addHeaders = try reader.bool(item, path)
                    case "max-message-bytes": config.limits.filterMaxMessageBytes = try reader.count(item, path)
                    case "deadline-seconds": config.limits.filterDeadlineSeconds = try reader.seconds(item, path)
                    case "on-library-error":
                        switch try reader.string(item, path) {
                        case "accept": config.filter.tempfailOnLibraryError = false
                        case "tempfail": config.filter.tempfailOnLibraryError = true
                        case let other: throw reader.fail(path, "must be \"accept\" or \"tempfail\", found \"\(other)\"")
                        }
                    default: throw reader.unknown(path)
                    }
                }
            case "milter":
                for (sub, item) in try reader.table(value, [key]) {
                    switch sub {
                    case "library-map", "library_map":
                        let template = try reader.string(item, [key, sub])
                        config.milterLibraryMap = template.isEmpty ? nil : template
                    case "user":
                        let name = try reader.string(item, [key, sub])
                        config.milterUser = name.isEmpty ? nil : name
                    case "group":
                        let name = try reader.string(item, [key, sub])
                        config.milterGroup = name.isEmpty ? nil : name
                    default: throw reader.unknown([key, sub])
                    }
                }
            case "serve":
                for (sub, item) in try reader.table(value, [key]) {
                    let path = [key, sub]
                    func text() throws(ConfigError) -> String? {
                        let s = try reader.string(item, path)
                        return s.isEmpty ? nil : s
                    }
                    func file() throws(ConfigError) -> String? {
                        try text().map { ConfigLocation.expand($0, relativeTo: folder, environment: environment) }
                    }
                    switch sub {
                    case "listen": config.serve.listen = try text()
                    case "auth": config.serve.auth = try text()
                    case "trusted-proxy": config.serve.trustedProxies = try reader.strings(item, path)
                    case "library-map": config.serve.libraryMap = try text()
                    case "public-url": config.serve.publicURL = try text()
                    case "tls-cert": config.serve.tlsCert = try file()
                    case "tls-key": config.serve.tlsKey = try file()
                    case "state": config.serve.state = try file()
                    case "uploads-at-once": config.serve.uploadsAtOnce = try reader.count(item, path)
                    case "upload-seconds": config.serve.uploadSeconds = try reader.seconds(item, path)
                    case "head-seconds": config.serve.headSeconds = try reader.seconds(item, path)
                    case "body-seconds": config.serve.bodySeconds = try reader.seconds(item, path)
                    default: throw reader.unknown(path)
                    }
                }
            case "notices":
                for (sub, item) in try reader.table(value, [key]) {
                    let path = [key, sub]
                    func text() throws(ConfigError) -> String? {
                        let s = try reader.string(item, path)
                        return s.isEmpty ? nil : s
                    }
                    switch sub {
                    case "enabled": config.notices.enabled = try reader.bool(item, path)
                    case "mail": config.notices.mail = try reader.bool(item, path)
                    case "opt-in": config.notices.optIn = try reader.bool(item, path)
                    case "desktop": config.notices.desktop = try reader.bool(item, path)
                    case "mail-to", "mail-from":
                        let address = try text()
                        if let address, !NoticeSettings.isAddress(address) {
                            throw reader.fail(path, "must be a mail address (local@domain), found \"\(address)\"")
                        }
                        if sub == "mail-to" { config.notices.mailTo = address } else { config.notices.mailFrom = address }
                    case "sendmail":
                        guard let program = try text() else { throw reader.fail(path, "must name a program") }
                        config.notices.sendmail = ConfigLocation.expand(program, relativeTo: folder, environment: environment)
                    case "smtp":
                        if let server = try text() {
                            guard let parsed = NoticeSettings.SMTPServer(server) else {
                                throw reader.fail(path, "must be \"HOST:PORT\" (e.g. \"localhost:25\"), found \"\(server)\"")
                            }
                            config.notices.smtp = parsed
                        } else {
                            config.notices.smtp = nil
                        }
                    case "quiet-hours":
                        if let span = try text() {
                            guard let hours = NoticeRules.QuietHours(span) else {
                                throw reader.fail(path, "must be \"HH:MM-HH:MM\" (e.g. \"22:00-07:00\"), found \"\(span)\"")
                            }
                            config.notices.quietHours = hours
                        } else {
                            config.notices.quietHours = nil
                        }
                    default:
                        guard let kind = NoticeSettings.leadKeys.first(where: { $0.key == sub })?.kind else { throw reader.unknown(path) }
                        guard item.type == .int, let minutes = item.int, minutes >= 0, minutes <= 60 * 24 * 14 else {
                            throw reader.fail(path, "must be a whole number of minutes from 0 (no reminder) to 20160 (two weeks)")
                        }
                        config.notices.leadTimes.byKind[kind] = Double(minutes) * 60
                    }
                }
            default:
                throw reader.unknown([key])
            }
        }
        return config
    }

    /// Typed access with errors that carry the line of the key.
    private struct Reader {
        let text: String
        let file: String

        func fail(_ path: [String], _ message: String) -> ConfigError {
            ConfigError(.badValue, file: file, line: TOMLKeyLocator.line(of: path, in: text),
                        key: path.joined(separator: "."), message: message)
        }

        func unknown(_ path: [String]) -> ConfigError {
            ConfigError(.unknownKey, file: file, line: TOMLKeyLocator.line(of: path, in: text),
                        key: path.joined(separator: "."), message: "unknown setting")
        }

        func found(_ value: TOMLValueConvertible) -> String { "found \(value.type)" }

        func table(_ value: TOMLValueConvertible, _ path: [String]) throws(ConfigError) -> TOMLTable {
            guard let table = value.table else { throw fail(path, "expected a table, \(found(value))") }
            return table
        }

        func string(_ value: TOMLValueConvertible, _ path: [String]) throws(ConfigError) -> String {
            guard let string = value.string else { throw fail(path, "expected a string, \(found(value))") }
            return string
        }

        func strings(_ value: TOMLValueConvertible, _ path: [String]) throws(ConfigError) -> [String] {
            guard let array = value.array else { throw fail(path, "expected an array of strings, \(found(value))") }
            var result: [String] = []
            for element in array {
                guard let string = element.string else {
                    throw fail(path, "expected an array of strings, found a \(element.type) in it")
                }
                result.append(string)
            }
            return result
        }

        func bool(_ value: TOMLValueConvertible, _ path: [String]) throws(ConfigError) -> Bool {
            guard let bool = value.bool else { throw fail(path, "expected true or false, \(found(value))") }
            return bool
        }

        /// A positive integer (sizes and counts).
        func count(_ value: TOMLValueConvertible, _ path: [String]) throws(ConfigError) -> Int {
            guard value.type == .int, let int = value.int else { throw fail(path, "expected an integer, \(found(value))") }
            guard int > 0 else { throw fail(path, "must be greater than 0, found \(int)") }
            return int
        }

        /// Seconds as an integer or a decimal, more than 0 and at most one hour.
        func seconds(_ value: TOMLValueConvertible, _ path: [String]) throws(ConfigError) -> Double {
            let seconds: Double
            switch value.type {
            case .int: seconds = Double(value.int ?? 0)
            case .double: seconds = value.double ?? 0
            default: throw fail(path, "expected a number of seconds, \(found(value))")
            }
            guard seconds > 0, seconds <= 3600 else { throw fail(path, "must be between 0 and 3600 seconds, found \(seconds)") }
            return seconds
        }
    }
}
