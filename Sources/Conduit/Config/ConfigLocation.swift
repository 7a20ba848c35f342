#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where passconduit looks for its files when nobody says: the XDG base directories, then the
/// home directory, then the passwd entry. A delivery filter run by Postfix `pipe` has no HOME and
/// no XDG variables, so the passwd entry is the last resort (DESIGN.md, delivery-filter contract).
package enum ConfigLocation {
    /// `$XDG_CONFIG_HOME/passconduit/config.toml`, else `~/.config/passconduit/config.toml`.
    /// XDG variables that are not absolute paths are ignored, as the XDG spec says.
    package static func defaultConfigPath(environment: [String: String]) -> String? {
        xdgHome("XDG_CONFIG_HOME", else: ".config", environment: environment).map { $0 + "/passconduit/config.toml" }
    }

    /// The system-wide configuration, for daemons run by the system (the Debian package's conffile,
    /// read by the milter and serve units, which pass no `--config`).
    package static let systemConfigPath = "/etc/passconduit/config.toml"

    /// For tests only: `PASSCONDUIT_SYSTEM_CONFIG` stands for `systemConfigPath`, so a test can
    /// put a system configuration in a temporary folder. Nothing else sets it.
    package static func systemConfig(environment: [String: String]) -> String {
        if let path = environment["PASSCONDUIT_SYSTEM_CONFIG"], path.hasPrefix("/") { return path }
        return systemConfigPath
    }

    /// The file read when no `--config` names one: the user's (`defaultConfigPath`) when it
    /// exists, else the system's (`/etc/passconduit/config.toml`) when it exists, else nil (the
    /// defaults apply).
    package static func configPathInUse(environment: [String: String]) -> String? {
        if let user = defaultConfigPath(environment: environment), FileManager.default.fileExists(atPath: user) { return user }
        let system = systemConfig(environment: environment)
        return FileManager.default.fileExists(atPath: system) ? system : nil
    }

    /// Where the filter and the milter keep their logs: `$XDG_STATE_HOME/passconduit`, else
    /// `~/.local/state/passconduit`; nil without any home.
    package static func stateDirectory(environment: [String: String]) -> String? {
        xdgHome("XDG_STATE_HOME", else: ".local/state", environment: environment).map { $0 + "/passconduit" }
    }

    /// The one XDG rule: `$variable` when it is an absolute path (the spec says to ignore any
    /// other), else `fallback` under the home directory (`homeDirectory`); nil without either.
    static func xdgHome(_ variable: String, else fallback: String, environment: [String: String]) -> String? {
        if let xdg = environment[variable], xdg.hasPrefix("/") { return trimmed(xdg) }
        guard let home = homeDirectory(environment: environment) else { return nil }
        return trimmed(home) + "/" + fallback
    }

    /// `$HOME` when it is an absolute path, else the passwd entry of the real user.
    package static func homeDirectory(environment: [String: String]) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        return passwdHome()
    }

    /// The library when neither `--library` nor the config names one:
    /// `$XDG_DATA_HOME/passconduit/library.sqlite`; without a usable XDG_DATA_HOME (unset, empty
    /// or relative, which the XDG spec says to ignore) `$HOME/.local/share/...`; without HOME
    /// (a Postfix pipe gives none) the passwd entry's home directory.
    package static func defaultLibraryPath(environment: [String: String]) -> String {
        "\(dataHome(environment: environment))/passconduit/library.sqlite"
    }

    static func dataHome(environment: [String: String]) -> String {
        // No passwd entry for this uid (an arbitrary container uid): a private folder in /tmp,
        // created 0700 like any other.
        xdgHome("XDG_DATA_HOME", else: ".local/share", environment: environment) ?? "/tmp/passconduit-\(getuid())"
    }

    private static func trimmed(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p == "/" ? "" : p
    }

    /// The home directory from the passwd entry of the real user id (getpwuid_r: thread-safe).
    /// The one passwd lookup of the project: config, library and filter log all fall back to it
    /// when HOME is unset (a Postfix pipe gives none).
    package static func passwdHome() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let rc = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result)
        guard rc == 0, result != nil, let dir = entry.pw_dir else { return nil }
        let home = String(cString: dir)
        return home.hasPrefix("/") ? home : nil
    }

    /// `~` and `~/x` expanded; a relative path is taken relative to `base` (the config file's folder).
    package static func expand(_ path: String, relativeTo base: String?, environment: [String: String]) -> String {
        if path == "~" { return homeDirectory(environment: environment) ?? path }
        if path.hasPrefix("~/"), let home = homeDirectory(environment: environment) {
            return home + path.dropFirst(1)
        }
        if path.hasPrefix("/") { return path }
        guard let base, !base.isEmpty else { return path }
        return base + "/" + path
    }
}
