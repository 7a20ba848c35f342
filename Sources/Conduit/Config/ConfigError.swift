/// A configuration file that cannot be used. It always names the file, and the line and key
/// when they are known, so a person can go straight to the mistake:
/// `~/.config/passconduit/config.toml:12: limits.max-depth: expected an integer, found a string`.
package struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        /// The file named with `--config` does not exist or cannot be read.
        case unreadable = "unreadable"
        /// Not valid TOML.
        case syntax = "syntax"
        /// A key passconduit does not know (usually a typo).
        case unknownKey = "unknown-key"
        /// A known key with a value of the wrong type or out of range.
        case badValue = "bad-value"
    }

    package let kind: Kind
    package let file: String
    package let line: Int?
    package let key: String?
    package let message: String

    package init(_ kind: Kind, file: String, line: Int? = nil, key: String? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    package var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "\(key): " }
        return text + message
    }
}
