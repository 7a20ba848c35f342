import Foundation
import PassStore
import PostgresNIO

extension PostgresLibrary {
    static let stateColumns = """
        pass_type_identifier, serial_number, sha256, web_service_url, authentication_token, last_modified, etag, \
        checked_at, outcome, http, error_code, message, retry_after
        """

    static func state(_ row: PostgresRow) throws -> WebServiceState {
        let (type, serial, sha256, url, token, lastModified, etag, checked, outcome, http, errorCode, message, retry)
            = try row.decode((String, String, String, String?, String?, String?, String?, Double?, String?, Int?, String?, String?, Double?).self)
        return WebServiceState(id: PassID(passTypeIdentifier: type, serialNumber: serial), sha256: sha256, webServiceURL: url,
                               authenticationToken: token, lastModified: lastModified, etag: etag,
                               checkedAt: PostgresRows.date(checked), outcome: outcome, http: http, errorCode: errorCode,
                               message: message, retryAfter: PostgresRows.date(retry))
    }

    package func webServiceStates() async throws -> [PassID: WebServiceState] {
        try await read("web service state") { tx in
            var out: [PassID: WebServiceState] = [:]
            for row in try await tx.rows(#"SELECT \#(Self.stateColumns) FROM passconduit.web_service_state WHERE "user" = $1"#, [tx.user]) {
                let state = try Self.state(row)
                out[state.id] = state
            }
            return out
        }
    }

    package func webServiceState(_ id: PassID) async throws -> WebServiceState? {
        try await read("web service state") { tx in
            try await tx.rows(#"SELECT \#(Self.stateColumns) FROM passconduit.web_service_state WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3"#,
                              [tx.user, id.passTypeIdentifier, id.serialNumber]).first.map(Self.state)
        }
    }

    /// Like SQLite's: one transaction; a state whose pass is gone or holds other bytes is dropped.
    package func saveWebServiceStates(_ states: [WebServiceState]) async throws {
        guard !states.isEmpty else { return }
        try await write("web service state") { tx in
            for s in states {
                try await tx.run("""
                    INSERT INTO passconduit.web_service_state ("user", \(Self.stateColumns))
                    SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14
                    WHERE EXISTS (SELECT 1 FROM passconduit.pass WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3 AND sha256 = $4)
                    ON CONFLICT ("user", pass_type_identifier, serial_number) DO UPDATE SET
                      sha256 = excluded.sha256, web_service_url = excluded.web_service_url,
                      authentication_token = excluded.authentication_token, last_modified = excluded.last_modified,
                      etag = excluded.etag, checked_at = excluded.checked_at, outcome = excluded.outcome, http = excluded.http,
                      error_code = excluded.error_code, message = excluded.message, retry_after = excluded.retry_after
                    """, [tx.user, s.id.passTypeIdentifier, s.id.serialNumber, s.sha256, s.webServiceURL, s.authenticationToken,
                          s.lastModified, s.etag, s.checkedAt?.timeIntervalSince1970, s.outcome, s.http, s.errorCode,
                          s.message, s.retryAfter?.timeIntervalSince1970])
            }
        }
    }

    package func deviceLibraryIdentifier() async throws -> String {
        let now = options.now
        return try await write("device id") { tx in
            if let id = try await tx.rows("SELECT device_library_identifier FROM passconduit.library_user WHERE name = $1", [tx.user])
                .first?.decode(String?.self) {
                return id
            }
            var generator = SystemRandomNumberGenerator()
            let id = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            try await tx.run("UPDATE passconduit.library_user SET device_library_identifier = $2, device_created_at = $3 WHERE name = $1",
                             [tx.user, id, now().timeIntervalSince1970])
            return id
        }
    }

    package func registrations() async throws -> [WebServiceRegistration] {
        try await read("registrations") { tx in
            try await tx.rows("""
                SELECT pass_type_identifier, serial_number, web_service_url, authentication_token, registered_at
                FROM passconduit.web_service_registration WHERE "user" = $1 ORDER BY pass_type_identifier, serial_number
                """, [tx.user]).map { row in
                let (type, serial, url, token, at) = try row.decode((String, String, String, String, Double).self)
                return WebServiceRegistration(id: PassID(passTypeIdentifier: type, serialNumber: serial), webServiceURL: url,
                                              authenticationToken: token, registeredAt: Date(timeIntervalSince1970: at))
            }
        }
    }

    package func saveRegistration(_ r: WebServiceRegistration) async throws {
        try await write("registration") { tx in
            try await tx.run("""
                INSERT INTO passconduit.web_service_registration
                  ("user", pass_type_identifier, serial_number, web_service_url, authentication_token, registered_at)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT ("user", pass_type_identifier, serial_number) DO UPDATE SET
                  web_service_url = excluded.web_service_url, authentication_token = excluded.authentication_token,
                  registered_at = excluded.registered_at
                """, [tx.user, r.id.passTypeIdentifier, r.id.serialNumber, r.webServiceURL, r.authenticationToken,
                      r.registeredAt.timeIntervalSince1970])
        }
    }

    package func deleteRegistration(_ id: PassID) async throws {
        try await write("registration") { tx in
            try await tx.run(#"DELETE FROM passconduit.web_service_registration WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3"#,
                             [tx.user, id.passTypeIdentifier, id.serialNumber])
        }
    }

    package func updateTag(webServiceURL: String, passTypeIdentifier: String) async throws -> String? {
        try await read("update tag") { tx in
            try await tx.rows(#"SELECT tag FROM passconduit.web_service_tag WHERE "user" = $1 AND web_service_url = $2 AND pass_type_identifier = $3"#,
                              [tx.user, webServiceURL, passTypeIdentifier]).first?.decode(String.self)
        }
    }

    package func setUpdateTag(_ tag: String?, webServiceURL: String, passTypeIdentifier: String) async throws {
        try await write("update tag") { tx in
            if let tag {
                try await tx.run("""
                    INSERT INTO passconduit.web_service_tag ("user", web_service_url, pass_type_identifier, tag) VALUES ($1, $2, $3, $4)
                    ON CONFLICT ("user", web_service_url, pass_type_identifier) DO UPDATE SET tag = excluded.tag
                    """, [tx.user, webServiceURL, passTypeIdentifier, tag])
            } else {
                try await tx.run(#"DELETE FROM passconduit.web_service_tag WHERE "user" = $1 AND web_service_url = $2 AND pass_type_identifier = $3"#,
                                 [tx.user, webServiceURL, passTypeIdentifier])
            }
        }
    }
}
