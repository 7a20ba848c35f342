#if canImport(Glibc)
import Glibc
#endif
import PassStore

/// Where passconduit looks for its files when nobody says: the XDG base directories, then the
/// home directory, then the passwd entry. A delivery filter run by Postfix `pipe` has no HOME and
/// no XDG variables, so the passwd entry is the last resort (DESIGN.md, delivery-filter contract).
package enum ConfigLocation {
    /// `$XDG_CONFIG_HOME/passconduit/config.toml`, else `~/.config/passconduit/config.toml`.
    /// XDG variables that are not absolute paths are ignored, as the XDG spec says.
    package static func defaultConfigPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return xdg + "/passconduit/config.toml"
        }
        guard let home = homeDirectory(environment: environment) else { return nil }
        return home + "/.config/passconduit/config.toml"
    }

    /// `$HOME` when it is an absolute path, else the passwd entry of the real user.
    package static func homeDirectory(environment: [String: String]) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        return LibraryLocation.passwdHome()
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
