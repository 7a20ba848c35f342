import Conduit

/// The environment a delivery filter can rely on: often none. Postfix pipe(8) exports only TZ,
/// MAIL_CONFIG and LANG and runs in the queue directory; Dovecot gives HOME but no XDG variables.
/// So HOME comes from the passwd entry when it is missing or relative, relative XDG variables are
/// dropped (the XDG spec says to ignore them), and nothing is ever resolved against the cwd.
package enum FilterEnvironment {
    package static func resolve(_ environment: [String: String]) -> [String: String] {
        var env = environment
        for (key, value) in environment where key.hasPrefix("XDG_") && !value.hasPrefix("/") {
            env[key] = nil
        }
        if !(env["HOME"]?.hasPrefix("/") ?? false) {
            if let home = passwdHome() { env["HOME"] = home } else { env["HOME"] = nil }
        }
        if let t = env["TMPDIR"], !t.hasPrefix("/") { env["TMPDIR"] = nil }
        return env
    }

    /// The home directory from the passwd database (the library's lookup, so the filter, the
    /// config and the library always agree on whose home it is).
    package static func passwdHome() -> String? { ConfigLocation.passwdHome() }

    /// `$XDG_STATE_HOME/passconduit`, else `$HOME/.local/state/passconduit`.
    package static func stateDirectory(_ env: [String: String]) -> String? {
        if let s = env["XDG_STATE_HOME"], s.hasPrefix("/") { return s + "/passconduit" }
        if let h = env["HOME"], h.hasPrefix("/") { return h + "/.local/state/passconduit" }
        return nil
    }
}
