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
/// The address comes from the SMTP envelope, so it is hostile text: the local part and the domain
/// are lower-cased, and an address with a `/`, a NUL, a control byte, a leading dot or an empty
/// part maps to no library.
package struct LibraryMap: Sendable, Equatable {
    package enum Rule: Sendable, Equatable {
        case headersOnly
        case shared(String)
        case template(String)
    }
    package var rule: Rule
    package init(rule: Rule) { self.rule = rule }

    /// The unique library paths for `recipients`, in recipient order.
    package func libraries(for recipients: [String], exists: (String) -> Bool = LibraryMap.fileExists) -> [String] {
        switch rule {
        case .headersOnly: return []
        case .shared(let path): return recipients.isEmpty ? [] : [path]
        case .template:
            var seen = Set<String>()
            var out: [String] = []
            for r in recipients {
                guard let path = path(for: r), exists(path), seen.insert(path).inserted else { continue }
                out.append(path)
            }
            return out
        }
    }

    /// The library path for one recipient (`<Alice@Example.org>` or `alice@example.org`), or nil.
    package func path(for recipient: String) -> String? {
        switch rule {
        case .headersOnly: return nil
        case .shared(let path): return path
        case .template(let template):
            guard let (local, domain) = Self.split(recipient) else { return nil }
            return template.replacingAll("%{local}", with: local).replacingAll("%{domain}", with: domain)
        }
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

    static func fileExists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }
}

extension String {
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

extension Substring {
    fileprivate func range(of target: String) -> Range<Index>? {
        guard !target.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(target) { return i..<index(i, offsetBy: target.count) }
            i = index(after: i)
        }
        return nil
    }
}
