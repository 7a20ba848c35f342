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
            if let home = ConfigLocation.passwdHome() { env["HOME"] = home } else { env["HOME"] = nil }
        }
        if let t = env["TMPDIR"], !t.hasPrefix("/") { env["TMPDIR"] = nil }
        return env
    }

    /// `$XDG_STATE_HOME/passconduit`, else `$HOME/.local/state/passconduit` (ConfigLocation's
    /// one XDG rule; the milter's log finds its folder through here).
    package static func stateDirectory(_ env: [String: String]) -> String? {
        ConfigLocation.stateDirectory(environment: env)
    }
}
