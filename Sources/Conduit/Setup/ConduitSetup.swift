import Foundation
import PassStore
import WalletPass

/// How every entry point (the commands, the delivery filter) turns settings into working parts,
/// so they agree: the same trust anchors, languages, library path and limits.
package struct ConduitSetup: Sendable {
    package let config: Config
    package let environment: [String: String]
    /// `--library`: wins over the config file.
    package let libraryOverride: String?
    /// `--trust`: added after the config's folders.
    package let extraTrust: [String]
    /// `--lang`: wins over the config file and the locale.
    package let languageOverride: String?

    package init(config: Config, environment: [String: String], libraryOverride: String? = nil,
                 extraTrust: [String] = [], languageOverride: String? = nil) {
        self.config = config
        self.environment = environment
        self.libraryOverride = libraryOverride
        self.extraTrust = extraTrust
        self.languageOverride = languageOverride
    }

    package var limits: Limits { config.limits }

    /// `--lang`, else the config's `language`, else LC_ALL / LC_MESSAGES / LANG
    /// ("de_DE.UTF-8" -> ["de-DE", "de"]); empty for C/POSIX.
    package var preferredLanguages: [String] {
        let raw = languageOverride ?? config.language
            ?? [environment["LC_ALL"], environment["LC_MESSAGES"], environment["LANG"]]
                .compactMap { $0 }.first { !$0.isEmpty }
        return Self.languages(from: raw)
    }

    package static func languages(from raw: String?) -> [String] {
        guard let raw else { return [] }
        var code = Substring(raw)
        if let cut = code.firstIndex(where: { $0 == "." || $0 == "@" }) { code = code[..<cut] }
        let tag = String(code.map { $0 == "_" ? "-" : $0 })   // no Foundation bridging: the filter calls this per message
        guard !tag.isEmpty, tag != "C", tag != "POSIX" else { return [] }
        var result = [tag]
        if let dash = tag.firstIndex(of: "-") { result.append(String(tag[..<dash])) }
        return result
    }

    /// The shipped Apple anchors, then the config's folders, then `--trust` folders.
    package var trustDirectories: [String] {
        var directories: [String] = []
        if let shipped = TrustStore.shippedDirectory() { directories.append(shipped) }
        return directories + config.trustDirectories + extraTrust
    }

    package func trustStore() throws -> TrustStore {
        try TrustStore.load(directories: trustDirectories)
    }

    package func opener() throws -> PassOpener {
        PassOpener(trust: try trustStore(), limits: limits.pass, preferredLanguages: preferredLanguages)
    }

    /// `--library`, else the config's `[library] path`, else `ConfigLocation.defaultLibraryPath`.
    package var libraryPath: String {
        libraryOverride ?? config.libraryPath ?? ConfigLocation.defaultLibraryPath(environment: environment)
    }

    /// libmagic with our rules; nil (the central directory still decides) if it cannot start.
    /// `lazily`: libmagic is loaded at its first use (see `MagicSniffer.init(rulesFile:lazily:)`).
    package func sniffer(lazily: Bool = false) -> MagicSniffer? {
        try? MagicSniffer(rulesFile: MagicSniffer.shippedRulesFile(environment: environment), lazily: lazily)
    }

    /// The scanner of the delivery filter: its sniffer loads libmagic only when a part without a
    /// pass label starts like a zip (most passes arrive labelled, and libmagic is not asked for them).
    package func scanner(library: (any PassLibraryBackend)?) throws -> PassScanner {
        PassScanner(opener: try opener(), library: library, limits: limits, sniffer: sniffer(lazily: true))
    }
}
