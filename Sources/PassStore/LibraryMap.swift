#if canImport(Glibc)
import Glibc
#endif

/// Which library each recipient's offers and updates go to.
///
/// - `--library PATH`: every recipient shares that one library (a host with one user).
/// - a `library-map` template such as `/var/lib/passconduit/%{local}@%{domain}/library.sqlite`:
///   each recipient's own library, used only if that file already exists (the milter never
///   creates a library for an address someone typed). A recipient without one gets headers only.
///
/// - a `library-map` starting `postgresql://` or `postgres://`: one PostgreSQL server holding
///   every recipient's library, the recipient (lower-cased `local@domain`) as the library user.
///   The address is never put into the URL; the worker asks the server for that user's library
///   and uses it only if it exists (`LibraryRoot.existingOpener`).
///
/// The address comes from the SMTP envelope, so it is hostile text: the local part and the domain
/// are lower-cased, and an address with a `/`, a NUL, a control byte, a leading dot or an empty
/// part maps to no library.
package struct LibraryMap: Sendable, Equatable {
    package enum Rule: Sendable, Equatable {
        case headersOnly
        case shared(String)
        case template(String)
    }
    /// One library to scan into: a file path or server location, and on a server whose library
    /// (nil: the location's own choice, as for `--library`).
    package struct Target: Sendable, Hashable {
        package var location: String
        package var user: String?
        package init(_ location: String, user: String? = nil) {
            self.location = location
            self.user = user
        }
    }

    package var rule: Rule
    /// Characters that start an address extension (Postfix's `recipient_delimiter`): the local
    /// part is cut at the first of them, so `alice+travel@` maps to alice's library.
    package var recipientDelimiter: String?
    package init(rule: Rule, recipientDelimiter: String? = nil) {
        self.rule = rule
        self.recipientDelimiter = recipientDelimiter
    }

    /// Why `template` cannot be a library map, or nil. A file template needs `%{local}` (alone or
    /// with `%{domain}`): without it every recipient would share one library; a placeholder it
    /// does not know (`%{locl}`) would be taken literally. A server map names no placeholder
    /// (the recipient is the library user).
    package static func problem(template: String) -> String? {
        var rest = Substring(template)
        var names: [String] = []
        while let start = rest.range(of: "%{") {
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                return "a placeholder is not closed with } (known: %{local}, %{domain})"
            }
            names.append(String(rest[start.upperBound..<end]))
            rest = rest[rest.index(after: end)...]
        }
        if let unknown = names.first(where: { $0 != "local" && $0 != "domain" }) {
            return "unknown placeholder %{\(unknown)} (known: %{local}, %{domain})"
        }
        if isServer(template) {
            return names.isEmpty ? nil : "a postgresql:// map takes the recipient as the library user and names no placeholder"
        }
        guard names.contains("local") else {
            return "the template has no %{local}: every recipient would share one library (use --library PATH for that)"
        }
        return nil
    }

    /// Whether `location` names a PostgreSQL server (libpq's URI schemes), not a file.
    package static func isServer(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// The unique libraries for `recipients`, in recipient order. A file template yields the
    /// files that exist; a server template yields every well-formed recipient as a user (the
    /// server says later whether that user has a library).
    package func libraries(for recipients: [String], exists: (String) -> Bool = LibraryMap.libraryPresent) -> [Target] {
        switch rule {
        case .headersOnly: return []
        case .shared(let path): return recipients.isEmpty ? [] : [Target(path)]
        case .template(let template):
            var seen = Set<Target>()
            var out: [Target] = []
            for r in recipients {
                let target: Target
                if Self.isServer(template) {
                    guard let (local, domain) = split(r) else { continue }
                    target = Target(template, user: local + "@" + domain)
                } else {
                    guard let path = path(for: r), exists(path) else { continue }
                    target = Target(path)
                }
                guard seen.insert(target).inserted else { continue }
                out.append(target)
            }
            return out
        }
    }

    /// The library file for one recipient (nil for a server template: see `libraries`) (`<Alice@Example.org>` or `alice@example.org`), or nil.
    package func path(for recipient: String) -> String? {
        switch rule {
        case .headersOnly: return nil
        case .shared(let path): return path
        case .template(let template):
            guard !Self.isServer(template), let (local, domain) = split(recipient) else { return nil }
            return Self.expand(template, local: local, domain: domain)
        }
    }

    /// `template` with `%{local}` and `%{domain}` replaced in one pass: an address's own text is
    /// never read again for placeholders (a local part `%{domain}` stays itself).
    static func expand(_ template: String, local: String, domain: String) -> String {
        var out = ""
        var rest = Substring(template)
        while !rest.isEmpty {
            if rest.hasPrefix("%{local}") {
                out += local
                rest = rest.dropFirst("%{local}".count)
            } else if rest.hasPrefix("%{domain}") {
                out += domain
                rest = rest.dropFirst("%{domain}".count)
            } else {
                out.append(rest.removeFirst())
            }
        }
        return out
    }

    /// Local part (without its extension, with a delimiter) and domain, lower-cased and checked.
    func split(_ recipient: String) -> (String, String)? {
        guard let (local, domain) = Self.split(recipient) else { return nil }
        guard let recipientDelimiter, let cut = local.firstIndex(where: { recipientDelimiter.contains($0) }),
              cut != local.startIndex else { return (local, domain) }
        return (String(local[..<cut]), domain)
    }

    /// Local part and domain, lower-cased and checked; nil for anything that is not a plain address.
    static func split(_ recipient: String) -> (String, String)? {
        var address = Substring(recipient)
        if address.hasPrefix("<") && address.hasSuffix(">") && address.count >= 2 {
            address = address.dropFirst().dropLast()
        }
        guard let at = address.lastIndex(of: "@") else { return nil }
        let local = String(address[..<at]).lowercased()
        let domain = String(address[address.index(after: at)...]).lowercased()
        guard isSafe(local), isSafe(domain) else { return nil }
        return (local, domain)
    }

    private static func isSafe(_ part: String) -> Bool {
        guard !part.isEmpty, part.utf8.count <= 255, !part.hasPrefix(".") else { return false }
        return part.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != 0x2F && $0 != 0x5C }
    }

    package static func fileExists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether a recipient has a library file for the milter to use: a regular file, or a path
    /// this process may not look at (a folder it cannot search, e.g. root's after `--user`).
    /// Opening that one then fails and the log names the library with the error it is, instead
    /// of the recipient passing in silence as one without a library.
    package static func libraryPresent(_ path: String) -> Bool {
        var st = stat()
        if stat(path, &st) == 0 { return (st.st_mode & S_IFMT) == S_IFREG }
        return errno != ENOENT && errno != ENOTDIR
    }
}
