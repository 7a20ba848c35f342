import Foundation
import GRDB
import PassStore
import Support

/// The web-service client's memory (issue 12). Kept apart from the pass rows: the library's
/// contract for passes (add, replace, remove, the change log) does not depend on it.
extension PassLibrary {
    /// Every pass's web-service state, by id.
    package func webServiceStates() throws -> [PassID: WebServiceState] {
        try read("web service state") { db in
            var out: [PassID: WebServiceState] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM web_service_state")
            while let row = try rows.next() {
                let state = Self.state(row)
                out[state.id] = state
            }
            return out
        }
    }

    package func webServiceState(_ id: PassID) throws -> WebServiceState? {
        try read("web service state") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM web_service_state WHERE passTypeIdentifier = ? AND serialNumber = ?",
                             arguments: [id.passTypeIdentifier, id.serialNumber]).map(Self.state)
        }
    }

    /// Saves states in one transaction (a run of 1 000 checks is one write). A state whose pass
    /// is gone or holds other bytes than `state.sha256` is dropped: it describes a version that
    /// another process replaced or removed meanwhile.
    package func saveWebServiceStates(_ states: [WebServiceState]) throws {
        guard !states.isEmpty else { return }
        try write("web service state") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO web_service_state
                  (passTypeIdentifier, serialNumber, sha256, webServiceURL, authenticationToken, lastModified, etag,
                   checkedAt, outcome, http, errorCode, message, retryAfter)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13
                WHERE EXISTS (SELECT 1 FROM pass WHERE passTypeIdentifier = ?1 AND serialNumber = ?2 AND sha256 = ?3)
                """)
            for s in states {
                try statement.execute(arguments: [
                    s.id.passTypeIdentifier, s.id.serialNumber, s.sha256, s.webServiceURL, s.authenticationToken,
                    s.lastModified, s.etag, s.checkedAt?.timeIntervalSince1970, s.outcome, s.http, s.errorCode,
                    s.message, s.retryAfter?.timeIntervalSince1970,
                ])
            }
        }
    }

    /// This library's `deviceLibraryIdentifier`: 32 random hex digits made on first use and kept.
    package func deviceLibraryIdentifier() throws -> String {
        try write("device id") { db in
            if let id = try String.fetchOne(db, sql: "SELECT deviceLibraryIdentifier FROM web_service_device WHERE id = 1") {
                return id
            }
            var generator = SystemRandomNumberGenerator()
            let id = Digest.hexString((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try db.execute(sql: "INSERT INTO web_service_device (id, deviceLibraryIdentifier, createdAt) VALUES (1, ?, ?)",
                           arguments: [id, options.now().timeIntervalSince1970])
            return id
        }
    }

    package func registrations() throws -> [WebServiceRegistration] {
        try read("registrations") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM web_service_registration ORDER BY passTypeIdentifier, serialNumber").map { row in
                WebServiceRegistration(id: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
                                       webServiceURL: row["webServiceURL"], authenticationToken: row["authenticationToken"],
                                       registeredAt: Date(timeIntervalSince1970: row["registeredAt"]))
            }
        }
    }

    package func saveRegistration(_ r: WebServiceRegistration) throws {
        try write("registration") { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO web_service_registration
                  (passTypeIdentifier, serialNumber, webServiceURL, authenticationToken, registeredAt) VALUES (?, ?, ?, ?, ?)
                """, arguments: [r.id.passTypeIdentifier, r.id.serialNumber, r.webServiceURL, r.authenticationToken,
                                 r.registeredAt.timeIntervalSince1970])
        }
    }

    package func deleteRegistration(_ id: PassID) throws {
        try write("registration") { db in
            try db.execute(sql: "DELETE FROM web_service_registration WHERE passTypeIdentifier = ? AND serialNumber = ?",
                           arguments: [id.passTypeIdentifier, id.serialNumber])
        }
    }

    /// The `lastUpdated` tag a server gave for (webServiceURL, pass type); never made up here.
    package func updateTag(webServiceURL: String, passTypeIdentifier: String) throws -> String? {
        try read("update tag") { db in
            try String.fetchOne(db, sql: "SELECT tag FROM web_service_tag WHERE webServiceURL = ? AND passTypeIdentifier = ?",
                                arguments: [webServiceURL, passTypeIdentifier])
        }
    }

    /// Stores the server's tag exactly, or forgets it (nil: after a 5xx, ask without one).
    package func setUpdateTag(_ tag: String?, webServiceURL: String, passTypeIdentifier: String) throws {
        try write("update tag") { db in
            if let tag {
                try db.execute(sql: "INSERT OR REPLACE INTO web_service_tag (webServiceURL, passTypeIdentifier, tag) VALUES (?, ?, ?)",
                               arguments: [webServiceURL, passTypeIdentifier, tag])
            } else {
                try db.execute(sql: "DELETE FROM web_service_tag WHERE webServiceURL = ? AND passTypeIdentifier = ?",
                               arguments: [webServiceURL, passTypeIdentifier])
            }
        }
    }

    private static func state(_ row: Row) -> WebServiceState {
        let checked: Double? = row["checkedAt"]
        let retry: Double? = row["retryAfter"]
        return WebServiceState(
            id: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
            sha256: row["sha256"], webServiceURL: row["webServiceURL"], authenticationToken: row["authenticationToken"],
            lastModified: row["lastModified"], etag: row["etag"], checkedAt: checked.map { Date(timeIntervalSince1970: $0) },
            outcome: row["outcome"], http: row["http"], errorCode: row["errorCode"], message: row["message"],
            retryAfter: retry.map { Date(timeIntervalSince1970: $0) })
    }
}
