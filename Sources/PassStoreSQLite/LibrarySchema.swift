import GRDB
import PassStore

/// The library's schema as frozen SQL history. A migration is never edited once shipped; a
/// change is a new migration. No `eraseDatabaseOnSchemaChange`: the library is the user's data.
enum LibrarySchema {
    /// `PRAGMA application_id` of a passconduit library: "PCLB". A file with another id is
    /// another program's database and is never touched.
    static let applicationID: Int32 = 0x5043_4C42
    /// `PRAGMA user_version` after the newest migration this build knows.
    static let userVersion: Int32 = 7

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-passes-offers-changes") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("v2-field-changes-web-service") { db in
            try db.execute(sql: v2)
        }
        migrator.registerMigration("v3-unsigned-passes") { db in
            try db.execute(sql: v3)
        }
        migrator.registerMigration("v4-share-links") { db in
            try db.execute(sql: v4)
        }
        migrator.registerMigration("v5-chat-provenance") { db in
            try db.execute(sql: v5)
            try raiseUserVersion(db, to: 5)
        }
        // v5 and v6 were made side by side: each only raises user_version, so the number is the
        // newest applied whatever the order.
        migrator.registerMigration("v6-notices") { db in
            try db.execute(sql: v6)
            try raiseUserVersion(db, to: 6)
        }
        migrator.registerMigration("v7-notice-settings") { db in
            try db.execute(sql: v7)
            try raiseUserVersion(db, to: 7)
        }
        return migrator
    }

    /// Sets `PRAGMA user_version` to `version` unless it is higher already (migrations made on
    /// parallel lines of history may be applied out of their numbers' order).
    static func raiseUserVersion(_ db: Database, to version: Int32) throws {
        let current = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if current < version { try db.execute(sql: "PRAGMA user_version = \(version)") }
    }

    /// Bytes live once per content (sha256), shared by a pass, its earlier versions and offers.
    /// Metadata tables never carry the blob, so listing and `contains` never read 30 KB rows.
    /// Times are Unix seconds (REAL). `fields` is a JSON array of StoredField.
    static let v1 = """
        CREATE TABLE pass_blob (
            sha256 TEXT NOT NULL PRIMARY KEY
                CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
            bytes BLOB NOT NULL
        );
        CREATE TABLE pass (
            id INTEGER PRIMARY KEY,
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            teamIdentifier TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('valid', 'untrusted')),
            sha256 TEXT NOT NULL REFERENCES pass_blob(sha256),
            byteCount INTEGER NOT NULL,
            organizationName TEXT NOT NULL,
            description TEXT NOT NULL,
            kind TEXT NOT NULL,
            relevantDate REAL,
            expirationDate REAL,
            voided INTEGER NOT NULL CHECK (voided IN (0, 1)),
            signerSubject TEXT,
            signingTime REAL,
            fields TEXT NOT NULL,
            sourceMessageID TEXT,
            sourceSubject TEXT,
            sourceFile TEXT,
            sourceReceivedAt REAL,
            addedAt REAL NOT NULL,
            updatedAt REAL NOT NULL,
            UNIQUE (passTypeIdentifier, serialNumber)
        );
        CREATE INDEX pass_by_sha256 ON pass(sha256);
        CREATE INDEX pass_by_relevance ON pass(relevantDate, addedAt);
        CREATE TABLE pass_version (
            id INTEGER PRIMARY KEY,
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            teamIdentifier TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('valid', 'untrusted')),
            sha256 TEXT NOT NULL REFERENCES pass_blob(sha256),
            byteCount INTEGER NOT NULL,
            organizationName TEXT NOT NULL,
            description TEXT NOT NULL,
            kind TEXT NOT NULL,
            relevantDate REAL,
            expirationDate REAL,
            voided INTEGER NOT NULL CHECK (voided IN (0, 1)),
            signerSubject TEXT,
            signingTime REAL,
            fields TEXT NOT NULL,
            sourceMessageID TEXT,
            sourceSubject TEXT,
            sourceFile TEXT,
            sourceReceivedAt REAL,
            addedAt REAL NOT NULL,
            updatedAt REAL NOT NULL,
            replacedAt REAL NOT NULL
        );
        CREATE INDEX pass_version_by_pass ON pass_version(passTypeIdentifier, serialNumber, id);
        CREATE INDEX pass_version_by_sha256 ON pass_version(sha256);
        CREATE TABLE offer (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            teamIdentifier TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('valid', 'untrusted')),
            sha256 TEXT NOT NULL REFERENCES pass_blob(sha256),
            byteCount INTEGER NOT NULL,
            organizationName TEXT NOT NULL,
            description TEXT NOT NULL,
            kind TEXT NOT NULL,
            signingTime REAL,
            sourceMessageID TEXT,
            sourceSubject TEXT,
            sourceFile TEXT,
            sourceReceivedAt REAL,
            createdAt REAL NOT NULL,
            UNIQUE (passTypeIdentifier, serialNumber)
        );
        CREATE INDEX offer_by_sha256 ON offer(sha256);
        CREATE TABLE change_log (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL CHECK (kind IN ('add', 'replace', 'remove', 'revert', 'offer', 'decline')),
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            sha256 TEXT,
            at REAL NOT NULL
        );
        PRAGMA application_id = 1346587714;
        PRAGMA user_version = 1;
        """

    /// Issue 12: what changed per field on a replace (for `log`), and what the PassKit web-service
    /// client remembers per pass (conditional-request validators, the last check), per library
    /// (the device id) and per registration (to unregister a pass the user removed).
    static let v2 = """
        CREATE TABLE change_field (
            sequence INTEGER NOT NULL REFERENCES change_log(sequence) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            key TEXT NOT NULL,
            label TEXT,
            oldValue TEXT,
            newValue TEXT,
            message TEXT,
            PRIMARY KEY (sequence, position)
        );
        CREATE TABLE web_service_state (
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            webServiceURL TEXT,
            authenticationToken TEXT,
            lastModified TEXT,
            etag TEXT,
            checkedAt REAL,
            outcome TEXT,
            http INTEGER,
            errorCode TEXT,
            message TEXT,
            retryAfter REAL,
            PRIMARY KEY (passTypeIdentifier, serialNumber)
        );
        CREATE TABLE web_service_device (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            deviceLibraryIdentifier TEXT NOT NULL,
            createdAt REAL NOT NULL
        );
        CREATE TABLE web_service_registration (
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            webServiceURL TEXT NOT NULL,
            authenticationToken TEXT NOT NULL,
            registeredAt REAL NOT NULL,
            PRIMARY KEY (passTypeIdentifier, serialNumber)
        );
        CREATE TABLE web_service_tag (
            webServiceURL TEXT NOT NULL,
            passTypeIdentifier TEXT NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (webServiceURL, passTypeIdentifier)
        );
        PRAGMA user_version = 2;
        """

    /// Issue 26 item 15: a pass with no signature, kept by the user's --allow-unsigned, is stored
    /// as `unsigned`. SQLite cannot alter a CHECK, so both tables are rebuilt with every row
    /// (offers stay valid or untrusted: the filter never offers an unsigned pass).
    static let v3 = """
        CREATE TABLE pass_v3 (
            id INTEGER PRIMARY KEY,
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            teamIdentifier TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('valid', 'untrusted', 'unsigned')),
            sha256 TEXT NOT NULL REFERENCES pass_blob(sha256),
            byteCount INTEGER NOT NULL,
            organizationName TEXT NOT NULL,
            description TEXT NOT NULL,
            kind TEXT NOT NULL,
            relevantDate REAL,
            expirationDate REAL,
            voided INTEGER NOT NULL CHECK (voided IN (0, 1)),
            signerSubject TEXT,
            signingTime REAL,
            fields TEXT NOT NULL,
            sourceMessageID TEXT,
            sourceSubject TEXT,
            sourceFile TEXT,
            sourceReceivedAt REAL,
            addedAt REAL NOT NULL,
            updatedAt REAL NOT NULL,
            UNIQUE (passTypeIdentifier, serialNumber)
        );
        INSERT INTO pass_v3 SELECT * FROM pass;
        DROP TABLE pass;
        ALTER TABLE pass_v3 RENAME TO pass;
        CREATE INDEX pass_by_sha256 ON pass(sha256);
        CREATE INDEX pass_by_relevance ON pass(relevantDate, addedAt);
        CREATE TABLE pass_version_v3 (
            id INTEGER PRIMARY KEY,
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            teamIdentifier TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('valid', 'untrusted', 'unsigned')),
            sha256 TEXT NOT NULL REFERENCES pass_blob(sha256),
            byteCount INTEGER NOT NULL,
            organizationName TEXT NOT NULL,
            description TEXT NOT NULL,
            kind TEXT NOT NULL,
            relevantDate REAL,
            expirationDate REAL,
            voided INTEGER NOT NULL CHECK (voided IN (0, 1)),
            signerSubject TEXT,
            signingTime REAL,
            fields TEXT NOT NULL,
            sourceMessageID TEXT,
            sourceSubject TEXT,
            sourceFile TEXT,
            sourceReceivedAt REAL,
            addedAt REAL NOT NULL,
            updatedAt REAL NOT NULL,
            replacedAt REAL NOT NULL
        );
        INSERT INTO pass_version_v3 SELECT * FROM pass_version;
        DROP TABLE pass_version;
        ALTER TABLE pass_version_v3 RENAME TO pass_version;
        CREATE INDEX pass_version_by_pass ON pass_version(passTypeIdentifier, serialNumber, id);
        CREATE INDEX pass_version_by_sha256 ON pass_version(sha256);
        PRAGMA user_version = 3;
        """

    /// Issue 42 item 2: share links. Only the secret's SHA-256 is kept; the link names its pass
    /// by id (it follows the pass across updates). Ids are never reused (AUTOINCREMENT).
    static let v4 = """
        CREATE TABLE share_link (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            secretHash TEXT NOT NULL UNIQUE
                CHECK (length(secretHash) = 64 AND secretHash NOT GLOB '*[^0-9a-f]*'),
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            createdAt REAL NOT NULL,
            expiresAt REAL NOT NULL,
            oneDownload INTEGER NOT NULL CHECK (oneDownload IN (0, 1)),
            revoked INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
            uses INTEGER NOT NULL DEFAULT 0,
            lastUsedAt REAL
        );
        CREATE INDEX share_link_by_pass ON share_link(passTypeIdentifier, serialNumber, id);
        PRAGMA user_version = 4;
        """

    /// Issue 42 item 3: offers from chat. A pass a bot handed over keeps the network, room, event
    /// and sender it came in with, next to the mail columns; all nullable, so older rows read as
    /// before. They travel from offer to pass to pass_version like the mail columns.
    static let v5 = """
        ALTER TABLE offer ADD COLUMN sourceNetwork TEXT;
        ALTER TABLE offer ADD COLUMN sourceRoom TEXT;
        ALTER TABLE offer ADD COLUMN sourceEventID TEXT;
        ALTER TABLE offer ADD COLUMN sourceSender TEXT;
        ALTER TABLE pass ADD COLUMN sourceNetwork TEXT;
        ALTER TABLE pass ADD COLUMN sourceRoom TEXT;
        ALTER TABLE pass ADD COLUMN sourceEventID TEXT;
        ALTER TABLE pass ADD COLUMN sourceSender TEXT;
        ALTER TABLE pass_version ADD COLUMN sourceNetwork TEXT;
        ALTER TABLE pass_version ADD COLUMN sourceRoom TEXT;
        ALTER TABLE pass_version ADD COLUMN sourceEventID TEXT;
        ALTER TABLE pass_version ADD COLUMN sourceSender TEXT;
        """

    /// Issue 43 item 2: notices. A change notice is recorded with its change (`eventAt` NULL, so
    /// any number per pass); a reminder once per (pass, event time): the UNIQUE key, with
    /// INSERT OR IGNORE. `notice_sent` holds one row per channel that claimed a notice: its
    /// primary key makes the claim, so two processes never both send. Ids are never reused.
    static let v6 = """
        CREATE TABLE notice (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            passTypeIdentifier TEXT NOT NULL,
            serialNumber TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('changed', 'voided', 'reminder')),
            text TEXT NOT NULL,
            dueAt REAL NOT NULL,
            eventAt REAL,
            createdAt REAL NOT NULL,
            UNIQUE (passTypeIdentifier, serialNumber, kind, eventAt)
        );
        CREATE INDEX notice_by_created ON notice(createdAt, id);
        CREATE TABLE notice_sent (
            notice INTEGER NOT NULL REFERENCES notice(id) ON DELETE CASCADE,
            channel TEXT NOT NULL CHECK (channel IN ('mail', 'desktop', 'web')),
            sentAt REAL NOT NULL,
            PRIMARY KEY (notice, channel)
        );
        """

    /// Issue 43 item 2: a library's own notice settings, chosen by its owner on the web Settings
    /// page: at most one row (id 1); each NULL is "as the host's config says". Lead times in
    /// minutes, 0 (no reminder) to two weeks. And a fourth channel, `chat` (the chat bot's direct
    /// message): SQLite changes a CHECK only by making the table anew, rows and all.
    static let v7 = """
        CREATE TABLE notice_setting (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            enabled INTEGER CHECK (enabled IN (0, 1)),
            boardingPassMinutes INTEGER CHECK (boardingPassMinutes BETWEEN 0 AND 20160),
            eventTicketMinutes INTEGER CHECK (eventTicketMinutes BETWEEN 0 AND 20160),
            otherMinutes INTEGER CHECK (otherMinutes BETWEEN 0 AND 20160),
            updatedAt REAL NOT NULL
        );
        CREATE TABLE notice_sent_v7 (
            notice INTEGER NOT NULL REFERENCES notice(id) ON DELETE CASCADE,
            channel TEXT NOT NULL CHECK (channel IN ('mail', 'desktop', 'web', 'chat')),
            sentAt REAL NOT NULL,
            PRIMARY KEY (notice, channel)
        );
        INSERT INTO notice_sent_v7 (notice, channel, sentAt) SELECT notice, channel, sentAt FROM notice_sent;
        DROP TABLE notice_sent;
        ALTER TABLE notice_sent_v7 RENAME TO notice_sent;
        """
}
