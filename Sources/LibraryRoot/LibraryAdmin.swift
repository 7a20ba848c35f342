#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PassStore
import PassStorePostgres
import PassStoreSQLite

/// A library's life for an operator of a gateway (`passconduit library create|list|drop|purge`),
/// on either kind of library map the milter uses (`LibraryMap`):
///
/// - a file template (`/var/lib/passconduit/%{local}@%{domain}/library.sqlite`): one SQLite file
///   per mailbox. `create` makes the file and any missing folder with modes a daemon's group can
///   share (file 0660, folder 2770: the setgid bit gives every file made later the folder's
///   group) and, when asked, an owner; the lock and WAL files the daemon writes get the same.
/// - a server (`postgresql://…`): the mailbox is the library user.
///
/// The address is lower-cased and checked exactly as the milter maps a recipient, so the library
/// `create` makes is the one the milter finds.
package enum LibraryAdmin {
    /// Who should own what `create` makes, and the modes.
    package struct Ownership: Sendable {
        package var uid: uid_t?
        package var gid: gid_t?
        package var fileMode: mode_t = 0o660
        package var folderMode: mode_t = 0o2770
        package init(uid: uid_t? = nil, gid: gid_t? = nil) {
            self.uid = uid
            self.gid = gid
        }
    }

    /// One library the map holds.
    package struct Entry: Sendable, Equatable {
        /// The mailbox (`local@domain`; the local part alone for a template without `%{domain}`).
        package var user: String
        /// The file, or the server's location without its password.
        package var location: String
    }

    /// A problem with the operator's request (not the library's): the CLI's usage error.
    package struct Problem: Error, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    /// Where `address`'s library is in `template`: a file path, or the server with the user.
    package static func target(_ address: String, template: String) throws -> LibraryMap.Target {
        if let problem = LibraryMap.problem(template: template) {
            throw Problem("library map \(LibraryLocation.withoutPassword(template)): \(problem)")
        }
        if !LibraryMap.isServer(template) && !template.hasPrefix("/") {
            throw Problem("library map \(template): give an absolute path")
        }
        let map = LibraryMap(rule: .template(template))
        guard let target = map.libraries(for: [address], exists: { _ in true }).first else {
            throw Problem("“\(address)” is not a mailbox address (local@domain, without /, \\, spaces or control characters)")
        }
        return target
    }

    // MARK: - create

    /// Creates `address`'s library (nothing when it exists; then only its modes and owner are
    /// set). Returns the location and whether it was new.
    package static func create(_ address: String, template: String, ownership: Ownership = Ownership()) async throws -> (location: String, created: Bool) {
        let target = try target(address, template: template)
        if let user = target.user {
            if ownership.uid != nil || ownership.gid != nil {
                throw Problem("--owner is for a file map; on a PostgreSQL server the database's roles decide who may write")
            }
            let existed = try await PostgresLibrary.users(target.location).contains(user)
            var options = LibraryOptions()
            options.user = user
            let library = try await LibraryRoot.open(target.location, options: options, create: true)
            await library.close()
            return (LibraryLocation.withoutPassword(target.location) + " (user \(user))", !existed)
        }
        let path = target.location
        let existed = LibraryMap.fileExists(path)
        try makeFolders(above: path, ownership: ownership)
        let library = try PassLibrary(path: path)
        await library.close()
        // The library file, its lock and (while a connection is open) its WAL files: the
        // daemon's user must write each of them.
        for file in [path, path + ".lock", path + "-wal", path + "-shm"] where access(file, F_OK) == 0 {
            try setOwnership(file, mode: ownership.fileMode, ownership, library: path)
        }
        return (path, !existed)
    }

    /// Creates every missing folder above `path` with the folder mode and owner.
    static func makeFolders(above path: String, ownership: Ownership) throws {
        for folder in try LibraryFile.missingFolders(above: path) {
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw LibraryError(.cannotCreate, "cannot create the folder \(folder): \(String(cString: strerror(errno)))", path: path)
            }
            try setOwnership(folder, mode: ownership.folderMode, ownership, library: path)
        }
    }

    private static func setOwnership(_ file: String, mode: mode_t, _ ownership: Ownership, library: String) throws {
        if ownership.uid != nil || ownership.gid != nil {
            // lchown: a link planted in the folder is not followed to a file elsewhere.
            guard lchown(file, ownership.uid ?? uid_t.max, ownership.gid ?? gid_t.max) == 0 else {
                throw LibraryError(.cannotCreate, "cannot give \(file) its owner: \(String(cString: strerror(errno)))", path: library)
            }
        }
        // After chown, which clears the setgid bit of a folder for a non-root caller.
        guard chmod(file, mode) == 0 else {
            throw LibraryError(.cannotCreate, "cannot set the mode of \(file): \(String(cString: strerror(errno)))", path: library)
        }
    }

    // MARK: - grant

    /// Gives the milter's and the web wallet's database roles their rights on a server map's
    /// libraries (`PostgresLibrary.grant`); run as the role that owns them.
    package static func grant(template: String, milter: String?, web: String?) async throws -> PostgresLibrary.Granted {
        guard LibraryMap.isServer(template) else {
            throw Problem("library grant is for a library map on a PostgreSQL server; a file map's libraries are kept apart by their files' owners and modes (library create --owner)")
        }
        guard milter != nil || web != nil else { throw Problem("give --milter ROLE, --web ROLE or both") }
        return try await PostgresLibrary.grant(template, milter: milter, web: web)
    }

    // MARK: - list

    /// Every library the map holds, sorted by mailbox.
    package static func list(template: String) async throws -> [Entry] {
        if let problem = LibraryMap.problem(template: template) {
            throw Problem("library map \(LibraryLocation.withoutPassword(template)): \(problem)")
        }
        if !LibraryMap.isServer(template) && !template.hasPrefix("/") {
            throw Problem("library map \(template): give an absolute path")
        }
        if LibraryMap.isServer(template) {
            let shown = LibraryLocation.withoutPassword(template)
            return try await PostgresLibrary.users(template).map { Entry(user: $0, location: shown) }
        }
        return files(template: template)
    }

    /// The library files a file template holds: the folders are walked component by component,
    /// a component with placeholders matched against the entries of its folder, and a match kept
    /// only when mapping its mailbox back gives the same path (what the milter would open).
    static func files(template: String) -> [Entry] {
        guard template.hasPrefix("/") else { return [] }
        let components = template.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let map = LibraryMap(rule: .template(template))
        let hasDomain = template.contains("%{domain}")
        var found: [Entry] = []
        func walk(_ folder: String, _ index: Int, _ captures: [String: String]) {
            guard index < components.count else {
                guard let local = captures["local"] else { return }
                let domain = captures["domain"] ?? "example.invalid"
                let address = local + "@" + domain
                guard map.path(for: address) == folder, LibraryMap.fileExists(folder) else { return }
                found.append(Entry(user: hasDomain ? address : local, location: folder))
                return
            }
            let component = components[index]
            let base = folder.isEmpty ? "" : folder
            guard component.contains("%{") else {
                let next = base + "/" + component
                if access(next, F_OK) == 0 { walk(next, index + 1, captures) }
                return
            }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: base.isEmpty ? "/" : base) else { return }
            for name in names.sorted() {
                guard let matched = match(name, component), consistent(matched, captures) else { continue }
                walk(base + "/" + name, index + 1, captures.merging(matched) { a, _ in a })
            }
        }
        walk("", 0, [:])
        return found.sorted { $0.user < $1.user }
    }

    /// The placeholders' values when `name` matches `pattern` (literal text and `%{…}`), else nil.
    /// `%{local}` takes as much as it can (an address splits at its last `@`).
    static func match(_ name: String, _ pattern: String) -> [String: String]? {
        var regex = "^"
        var names: [String] = []
        var rest = Substring(pattern)
        while let start = rest.range(of: "%{"), let end = rest[start.upperBound...].firstIndex(of: "}") {
            regex += NSRegularExpression.escapedPattern(for: String(rest[..<start.lowerBound]))
            names.append(String(rest[start.upperBound..<end]))
            regex += names.last == "local" ? "(.+)" : "(.+?)"
            rest = rest[rest.index(after: end)...]
        }
        regex += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
        guard let expression = try? NSRegularExpression(pattern: regex),
              let m = expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) else { return nil }
        var out: [String: String] = [:]
        for (i, key) in names.enumerated() {
            guard let r = Range(m.range(at: i + 1), in: name) else { return nil }
            let value = String(name[r])
            if let earlier = out[key], earlier != value { return nil }
            out[key] = value
        }
        return out
    }

    private static func consistent(_ a: [String: String], _ b: [String: String]) -> Bool {
        a.allSatisfy { key, value in b[key].map { $0 == value } ?? true }
    }

    // MARK: - drop

    /// What a library held when it was erased.
    package struct Dropped: Sendable, Equatable {
        package var location: String
        package var passes: Int
        package var offers: Int
        /// Files and folders removed (a file library).
        package var removed: [String] = []
        /// Rows of the web wallet's state erased with it: sign-ins, API tokens, calendar address.
        package var web = 0
    }

    /// Erases `address`'s library: on a server every row of that user; for a file map the
    /// library file with its lock and WAL files, and the folder when the template gives each
    /// mailbox a folder of its own (its name holds `%{local}`), with whatever else is in it.
    /// A file that is not a pass library is refused and left as it is.
    package static func drop(_ address: String, template: String) async throws -> Dropped {
        let target = try target(address, template: template)
        if let user = target.user {
            var options = LibraryOptions()
            options.user = user
            let opened = try await LibraryRoot.open(target.location, options: options, create: false)
            guard let library = opened as? PostgresLibrary else { throw Problem("not a library on a server") }
            let erased: PostgresLibrary.Erased
            do {
                erased = try await library.drop()
            } catch {
                await library.close()
                throw error
            }
            await library.close()
            // The web wallet keeps its sign-ins, tokens and calendar secret in the same database,
            // under the signed-in address (lower-cased, as here): an erasure takes them too.
            let web = try await PostgresWebState(location: target.location).forget(user: address.lowercased())
            return Dropped(location: LibraryLocation.withoutPassword(target.location) + " (user \(user))",
                           passes: erased.passes, offers: erased.offers, web: web)
        }
        let path = target.location
        guard LibraryMap.fileExists(path) else {
            throw LibraryError(.notFound, "there is no library for \(address)", path: path)
        }
        // Opened first: a file that is not a pass library is not ours to delete.
        let (passes, offers) = try await counts(path)
        var removed: [String] = []
        for file in [path, path + "-wal", path + "-shm", path + "-journal", path + ".lock"] {
            if unlink(file) == 0 {
                removed.append(file)
            } else if errno != ENOENT {
                throw LibraryError(.io, "cannot remove \(file): \(String(cString: strerror(errno)))", path: path)
            }
        }
        if let folder = ownFolder(of: path, template: template) {
            do {
                try FileManager.default.removeItem(atPath: folder)
                removed.append(folder + "/")
            } catch {
                throw LibraryError(.io, "removed the library, but not its folder \(folder): \(error.localizedDescription)", path: path)
            }
        }
        return Dropped(location: path, passes: passes, offers: offers, removed: removed)
    }

    /// Passes and offers in the library file at `path`, opened read-only and closed again (its
    /// connection released before the files go).
    private static func counts(_ path: String) async throws -> (Int, Int) {
        let library = try PassLibrary.reading(path)
        let counts = (try await library.count(), try await library.offers().count)
        await library.close()
        return counts
    }

    /// The folder holding `path` when the template names it after the mailbox (the folder's
    /// own component holds `%{local}`), so it is that mailbox's alone; nil otherwise.
    static func ownFolder(of path: String, template: String) -> String? {
        let folderTemplate = (template as NSString).deletingLastPathComponent
        guard (folderTemplate as NSString).lastPathComponent.contains("%{local}") else { return nil }
        let folder = (path as NSString).deletingLastPathComponent
        var info = stat()
        guard lstat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return folder
    }

    // MARK: - purge

    /// Declines every offer staged before `cutoff` in each library (the change log records each
    /// as declined, as `offers --decline` would). Returns the count per library, in order.
    package static func purgeOffers(before cutoff: Date, users: [String]?, template: String) async throws -> [(Entry, Int)] {
        var entries = try await list(template: template)
        if let users {
            var chosen: [Entry] = []
            for address in users {
                let target = try target(address, template: template)
                let user = target.user ?? address
                if let entry = entries.first(where: { target.user == nil ? $0.location == target.location : $0.user == user }) {
                    chosen.append(entry)
                } else {
                    throw LibraryError(.notFound, "there is no library for \(address)", path: LibraryLocation.withoutPassword(target.location))
                }
            }
            entries = chosen
        }
        var out: [(Entry, Int)] = []
        for entry in entries {
            var options = LibraryOptions()
            let location: String
            if LibraryMap.isServer(template) {
                options.user = entry.user
                location = template
            } else {
                location = entry.location
            }
            let library = try await LibraryRoot.open(location, options: options, create: false)
            var count = 0
            do {
                for offer in try await library.offers() where offer.createdAt < cutoff {
                    do {
                        try await library.declineOffer(offer.offerID)
                        count += 1
                    } catch let error as LibraryError where error.kind == .notFound {
                        // Accepted or declined meanwhile.
                    }
                }
            } catch {
                await library.close()
                throw error
            }
            await library.close()
            out.append((entry, count))
        }
        return out
    }

    /// "30d", "12h", "90m", "45s", "2w" as seconds; nil for anything else.
    package static func age(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let value = Double(text.dropLast()), value.isFinite, value >= 0 else { return nil }
        switch unit {
        case "s": return value
        case "m": return value * 60
        case "h": return value * 3600
        case "d": return value * 86_400
        case "w": return value * 7 * 86_400
        default: return nil
        }
    }
}
