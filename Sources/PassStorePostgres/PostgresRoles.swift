import Foundation
import PassStore
import PostgresNIO

/// One database role per purpose (issue 27, PostgreSQL isolation): the operator's role owns the
/// schema and does what only an owner may (create libraries, migrate, list, drop, copy); the
/// milter's role may read a library and stage offers into it, nothing more; the web wallet's
/// role may do what a person does to their own library, and use the web tables. Neither of the
/// two is subject-free: row-level security (schema v3) shows each of their connections only the
/// rows of the library user it is scoped to, so a query that forgot its `"user"` condition still
/// reads nothing of another mailbox.
///
/// `grant` is run by the owner (`passconduit library grant`) after the roles were made by a
/// database superuser (`createuser`), and again after an upgrade whose schema added a table.
extension PostgresLibrary {
    /// What a purpose's role may do, table by table. Every table of the `passconduit` schema is
    /// named in each purpose's list or in `readOnly` (`PostgresRoleTests` fails when a migration
    /// adds a table that is named nowhere, rather than leaving a role silently without it).
    struct Grants {
        var tables: [(privileges: String, tables: [String])]
        var sequences: Bool
        var webTables: Bool
    }

    static let readOnly = ["migration"]

    /// The milter stages offers: the offer, its bytes, the change log's entry and the user's counters.
    static let milterGrants = Grants(tables: [
        ("SELECT", ["library_user", "pass_blob", "pass", "pass_version", "offer", "change_log", "change_field",
                    "web_service_state", "web_service_registration", "web_service_tag", "share_link",
                    "notice", "notice_sent"]),
        ("INSERT, UPDATE, DELETE", ["offer", "pass_blob"]),
        ("INSERT", ["change_log", "change_field"]),
        ("UPDATE", ["library_user"]),
    ], sequences: false, webTables: false)

    /// The web wallet does what its signed-in person may: every change to their own library, and
    /// its sessions, calendar secrets and API tokens. Making or erasing a library stays the owner's.
    static let webGrants = Grants(tables: [
        ("SELECT, UPDATE", ["library_user"]),
        ("SELECT, INSERT, UPDATE, DELETE", ["pass_blob", "pass", "pass_version", "offer", "change_log", "change_field",
                                            "web_service_state", "web_service_registration", "web_service_tag", "share_link",
                                            "notice", "notice_sent"]),
    ], sequences: true, webTables: true)

    /// What `grant` did: the roles given their rights.
    package struct Granted: Sendable, Equatable {
        package var milter: String?
        package var web: String?
    }

    /// Gives `milter` and `web` (roles that exist and are neither superusers nor the tables'
    /// owner) their purpose's rights on the library at `text`, whose schema must be current
    /// (open a library as the owner first). Makes the web tables when they are missing, so they
    /// belong to the owner too. Idempotent.
    package static func grant(_ text: String, milter: String?, web: String?, options: LibraryOptions = .default,
                              environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Granted {
        try await withOperatorConnection(text, "grant", options: options, environment: environment) { tx in
            try await grant(tx, milter: milter, web: web)
            return Granted(milter: milter, web: web)
        }
    }

    private static func grant(_ tx: PostgresTransaction, milter: String?, web: String?) async throws {
        let version = try await tx.rows("""
            SELECT CASE WHEN to_regclass('passconduit.migration') IS NULL THEN 0
                        ELSE (SELECT coalesce(max(version), 0) FROM passconduit.migration) END
            """)[0].decode(Int.self)
        var applied: Set<Int> = []
        if version > 0 { applied = try await PostgresSetup.appliedVersions(tx) }
        guard version > 0, applied == PostgresSchema.known else {
            throw LibraryError(.notFound, version == 0
                ? "grant: the database holds no passconduit library yet; make one first as this role (passconduit library create ADDRESS)"
                : "grant: the library's schema is at version \(version), this passconduit's is \(PostgresSchema.newest); open a library as this role first (passconduit library create ADDRESS) to bring it up to date")
        }
        let owner = try await tx.rows("""
            SELECT pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'passconduit' AND c.relname = 'library_user'
            """)[0].decode(String.self)
        for (purpose, role) in [("--milter", milter), ("--web", web)] {
            guard let role else { continue }
            guard !role.isEmpty, !role.utf8.contains(0) else {
                throw LibraryError(.cannotCreate, "grant: \(purpose): give the name of a role")
            }
            let found = try await tx.rows("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = $1", [role])
            guard let row = found.first else {
                throw LibraryError(.notFound, "grant: \(purpose): there is no role \(role) on this server (make it first: createuser \(role))")
            }
            if try row.decode(Bool.self) || role == owner {
                throw LibraryError(.cannotCreate, "grant: \(purpose): the role \(role) \(role == owner ? "owns the library's tables" : "is a superuser or bypasses row-level security"), so it would see every mailbox's library; give the \(purpose.dropFirst(2)) a role of its own")
            }
        }
        try await tx.run("BEGIN")
        do {
            if web != nil {
                try await tx.run("SELECT pg_advisory_xact_lock($1)", [PostgresWebState.lockKey])
                for statement in PostgresWebState.schema { try await tx.run(statement) }
            }
            for (role, grants) in [(milter, milterGrants), (web, webGrants)] {
                guard let role else { continue }
                let grantee = quoted(role)
                try await tx.run("GRANT USAGE ON SCHEMA passconduit TO \(grantee)")
                try await tx.run("GRANT SELECT ON \(readOnly.map { "passconduit." + $0 }.joined(separator: ", ")) TO \(grantee)")
                for (privileges, tables) in grants.tables {
                    try await tx.run("GRANT \(privileges) ON \(tables.map { "passconduit." + $0 }.joined(separator: ", ")) TO \(grantee)")
                }
                if grants.sequences {
                    try await tx.run("GRANT USAGE ON ALL SEQUENCES IN SCHEMA passconduit TO \(grantee)")
                }
                if grants.webTables {
                    try await tx.run("GRANT USAGE ON SCHEMA passconduit_web TO \(grantee)")
                    try await tx.run("GRANT SELECT, INSERT, UPDATE, DELETE ON \(PostgresWebState.tables.map { "passconduit_web." + $0 }.joined(separator: ", ")) TO \(grantee)")
                }
            }
            try await tx.run("COMMIT")
        } catch {
            _ = try? await tx.run("ROLLBACK")
            throw error
        }
    }

    /// A role name as an SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
