/// The PostgreSQL library's schema as frozen SQL history, like `LibrarySchema` for SQLite: a
/// migration is never edited once shipped; a change is a new migration appended to `migrations`.
///
/// Everything lives in the schema `passconduit`, so the database may hold other programs' tables.
/// One database keeps many users' libraries: every table has a `"user"` column, and every key
/// and uniqueness constraint includes it. `library_user` holds one row per library; each write
/// locks that row first (see `PostgresLibrary.write`), and it carries the user's change-log and
/// offer counters, so sequence numbers count per library from 1 and are never reused.
/// Identifier and digest columns use the "C" collation: byte order, as SQLite compares, so
/// listings sort alike and a SHA-256 prefix is a range over an index.
enum PostgresSchema {
    /// Marks the `passconduit` schema as this program's (a schema of that name without it is not
    /// touched).
    static let application = "passconduit pass library"

    static let migrations: [(version: Int, name: String, sql: String)] = [
        (1, "v1-users-passes-offers-changes-web-service", v1),
        (2, "v2-unsigned-passes", v2),
        (3, "v3-row-level-security", v3),
        (4, "v4-share-links", v4),
        (5, "v5-chat-provenance", v5),
        (6, "v6-notices", v6),
        (7, "v7-notice-settings", v7),
    ]

    /// The highest version this build knows. Versions need not be contiguous (5, chat
    /// provenance, was made beside 6): `PostgresSetup` applies each migration whose version the
    /// database has not recorded, and a database is current when it has recorded every one.
    static var newest: Int { migrations.map(\.version).max()! }

    /// Every version this build knows.
    static var known: Set<Int> { Set(migrations.map(\.version)) }

    static let v1 = """
        CREATE TABLE passconduit.library_user (
            name text COLLATE "C" PRIMARY KEY CHECK (name <> ''),
            last_sequence bigint NOT NULL DEFAULT 0,
            last_offer bigint NOT NULL DEFAULT 0,
            device_library_identifier text,
            device_created_at double precision,
            created_at double precision NOT NULL
        );
        CREATE TABLE passconduit.pass_blob (
            "user" text COLLATE "C" NOT NULL REFERENCES passconduit.library_user(name),
            sha256 text COLLATE "C" NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
            bytes bytea NOT NULL,
            PRIMARY KEY ("user", sha256)
        );
        CREATE TABLE passconduit.pass (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            "user" text COLLATE "C" NOT NULL,
            pass_type_identifier text COLLATE "C" NOT NULL,
            serial_number text COLLATE "C" NOT NULL,
            team_identifier text NOT NULL,
            status text NOT NULL CHECK (status IN ('valid', 'untrusted')),
            sha256 text COLLATE "C" NOT NULL,
            byte_count bigint NOT NULL,
            organization_name text NOT NULL,
            description text NOT NULL,
            kind text NOT NULL,
            relevant_date double precision,
            expiration_date double precision,
            voided boolean NOT NULL,
            signer_subject text,
            signing_time double precision,
            fields text NOT NULL,
            source_message_id text,
            source_subject text,
            source_file text,
            source_received_at double precision,
            added_at double precision NOT NULL,
            updated_at double precision NOT NULL,
            UNIQUE ("user", pass_type_identifier, serial_number),
            FOREIGN KEY ("user", sha256) REFERENCES passconduit.pass_blob ("user", sha256)
        );
        CREATE INDEX pass_by_sha256 ON passconduit.pass ("user", sha256);
        CREATE INDEX pass_by_relevance ON passconduit.pass ("user", (relevant_date IS NULL), relevant_date, added_at, id);
        CREATE TABLE passconduit.pass_version (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            "user" text COLLATE "C" NOT NULL,
            pass_type_identifier text COLLATE "C" NOT NULL,
            serial_number text COLLATE "C" NOT NULL,
            team_identifier text NOT NULL,
            status text NOT NULL CHECK (status IN ('valid', 'untrusted')),
            sha256 text COLLATE "C" NOT NULL,
            byte_count bigint NOT NULL,
            organization_name text NOT NULL,
            description text NOT NULL,
            kind text NOT NULL,
            relevant_date double precision,
            expiration_date double precision,
            voided boolean NOT NULL,
            signer_subject text,
            signing_time double precision,
            fields text NOT NULL,
            source_message_id text,
            source_subject text,
            source_file text,
            source_received_at double precision,
            added_at double precision NOT NULL,
            updated_at double precision NOT NULL,
            replaced_at double precision NOT NULL,
            FOREIGN KEY ("user", sha256) REFERENCES passconduit.pass_blob ("user", sha256)
        );
        CREATE INDEX pass_version_by_pass ON passconduit.pass_version ("user", pass_type_identifier, serial_number, id);
        CREATE INDEX pass_version_by_sha256 ON passconduit.pass_version ("user", sha256);
        CREATE TABLE passconduit.offer (
            "user" text COLLATE "C" NOT NULL,
            id bigint NOT NULL,
            pass_type_identifier text COLLATE "C" NOT NULL,
            serial_number text COLLATE "C" NOT NULL,
            team_identifier text NOT NULL,
            status text NOT NULL CHECK (status IN ('valid', 'untrusted')),
            sha256 text COLLATE "C" NOT NULL,
            byte_count bigint NOT NULL,
            organization_name text NOT NULL,
            description text NOT NULL,
            kind text NOT NULL,
            signing_time double precision,
            source_message_id text,
            source_subject text,
            source_file text,
            source_received_at double precision,
            created_at double precision NOT NULL,
            PRIMARY KEY ("user", id),
            UNIQUE ("user", pass_type_identifier, serial_number),
            FOREIGN KEY ("user", sha256) REFERENCES passconduit.pass_blob ("user", sha256)
        );
        CREATE INDEX offer_by_sha256 ON passconduit.offer ("user", sha256);
        CREATE TABLE passconduit.change_log (
            "user" text COLLATE "C" NOT NULL REFERENCES passconduit.library_user(name),
            sequence bigint NOT NULL CHECK (sequence > 0),
            kind text NOT NULL CHECK (kind IN ('add', 'replace', 'remove', 'revert', 'offer', 'decline')),
            pass_type_identifier text COLLATE "C" NOT NULL,
            serial_number text COLLATE "C" NOT NULL,
            sha256 text COLLATE "C",
            at double precision NOT NULL,
            PRIMARY KEY ("user", sequence)
        );
        CREATE TABLE passconduit.change_field (
            "user" text COLLATE "C" NOT NULL,
            sequence bigint NOT NULL,
            position integer NOT NULL,
            key text NOT NULL,
            label text,
            old_value text,
            new_value text,
            message text,
            PRIMARY KEY ("user", sequence, position),
            FOREIGN KEY ("user", sequence) REFERENCES passconduit.change_log ("user", sequence) ON DELETE CASCADE
        );
        CREATE TABLE passconduit.web_service_state (
            "user" text COLLATE "C" NOT NULL,
            pass_type_identifier text COLLATE "C" NOT NULL,
            serial_number text COLLATE "C" NOT NULL,
            sha256 text NOT NULL,
            web_service_url text,
            authentication_token text,
            last_modified text,
            etag text,
            checked_at double precision,
            outcome text,
            http bigint,
            error_code text,
            message text,
            retry_after double precision,
            PRIMARY KEY ("user", pass_type_identifier, serial_number)
        );
        CREATE TABLE passconduit.web_service_registration (
            "user" text COLLATE "C" NOT NULL,
            pass_type_identifier text COLLATE "C" NOT NULL,
            serial_number text COLLATE "C" NOT NULL,
            web_service_url text NOT NULL,
            authentication_token text NOT NULL,
            registered_at double precision NOT NULL,
            PRIMARY KEY ("user", pass_type_identifier, serial_number)
        );
        CREATE TABLE passconduit.web_service_tag (
            "user" text COLLATE "C" NOT NULL,
            web_service_url text COLLATE "C" NOT NULL,
            pass_type_identifier text COLLATE "C" NOT NULL,
            tag text NOT NULL,
            PRIMARY KEY ("user", web_service_url, pass_type_identifier)
        );
        """

    /// Issue 26 item 15: a pass with no signature, kept by the user's --allow-unsigned, is stored
    /// as `unsigned` (offers stay valid or untrusted: the filter never offers an unsigned pass).
    static let v2 = """
        ALTER TABLE passconduit.pass DROP CONSTRAINT pass_status_check;
        ALTER TABLE passconduit.pass ADD CONSTRAINT pass_status_check CHECK (status IN ('valid', 'untrusted', 'unsigned'));
        ALTER TABLE passconduit.pass_version DROP CONSTRAINT pass_version_status_check;
        ALTER TABLE passconduit.pass_version ADD CONSTRAINT pass_version_status_check CHECK (status IN ('valid', 'untrusted', 'unsigned'))
        """

    /// Issue 27, PostgreSQL isolation: row-level security on every library table. A role that
    /// does not own the tables (the milter's, the web wallet's: see `PostgresRoles`) sees and
    /// changes only the rows of the library user its connection is scoped to: the run-time
    /// parameter `passconduit.user`, which every library connection sets at start-up to the user
    /// it opened (`PostgresLibrary.startupParameters`). Unscoped, such a role sees no row. The
    /// owner (the role that created the schema: the admin's) and superusers are not subject to
    /// the policies, so a single-role installation works as before. A policy without WITH CHECK
    /// uses its USING expression for new rows too: a scoped role cannot write another user's rows.
    static let v3 = """
        ALTER TABLE passconduit.library_user ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.library_user USING (name = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.pass_blob ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.pass_blob USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.pass ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.pass USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.pass_version ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.pass_version USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.offer ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.offer USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.change_log ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.change_log USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.change_field ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.change_field USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.web_service_state ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.web_service_state USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.web_service_registration ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.web_service_registration USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.web_service_tag ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.web_service_tag USING ("user" = current_setting('passconduit.user', true))
        """

    /// Issue 42 item 2: share links. Only the secret's SHA-256 is kept; the link names its pass by
    /// id (it follows the pass across updates). Ids count per library from the user's counter.
    static let v4 = """
        ALTER TABLE passconduit.library_user ADD COLUMN last_share_link bigint NOT NULL DEFAULT 0;
        CREATE TABLE passconduit.share_link (
            "user" text COLLATE "C" NOT NULL REFERENCES passconduit.library_user(name),
            id bigint NOT NULL,
            secret_hash text COLLATE "C" NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
            pass_type_identifier text COLLATE "C" NOT NULL,
            serial_number text COLLATE "C" NOT NULL,
            created_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            one_download boolean NOT NULL,
            revoked boolean NOT NULL DEFAULT false,
            uses bigint NOT NULL DEFAULT 0,
            last_used_at double precision,
            PRIMARY KEY ("user", id),
            UNIQUE ("user", secret_hash)
        );
        CREATE INDEX share_link_by_pass ON passconduit.share_link ("user", pass_type_identifier, serial_number, id);
        ALTER TABLE passconduit.share_link ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.share_link USING ("user" = current_setting('passconduit.user', true))
        """

    /// Issue 42 item 3: offers from chat, as SQLite's v5: the network, room, event and sender a
    /// bot saw the pass in, nullable, on offer, pass and pass_version.
    static let v5 = """
        ALTER TABLE passconduit.offer ADD COLUMN source_network text, ADD COLUMN source_room text,
            ADD COLUMN source_event_id text, ADD COLUMN source_sender text;
        ALTER TABLE passconduit.pass ADD COLUMN source_network text, ADD COLUMN source_room text,
            ADD COLUMN source_event_id text, ADD COLUMN source_sender text;
        ALTER TABLE passconduit.pass_version ADD COLUMN source_network text, ADD COLUMN source_room text,
            ADD COLUMN source_event_id text, ADD COLUMN source_sender text
        """

    /// Issue 43 item 2: notices. A change notice is recorded with its change (event_at NULL, so
    /// any number per pass); a reminder once per (pass, event time). `notice_sent` holds one row
    /// per channel that claimed a notice: its primary key makes the claim (INSERT … ON CONFLICT
    /// DO NOTHING), so two hosts never both send. Ids count per library from the user's counter.
    static let v6 = """
        ALTER TABLE passconduit.library_user ADD COLUMN last_notice bigint NOT NULL DEFAULT 0;
        CREATE TABLE passconduit.notice (
            "user" text COLLATE "C" NOT NULL REFERENCES passconduit.library_user(name),
            id bigint NOT NULL,
            pass_type_identifier text COLLATE "C" NOT NULL,
            serial_number text COLLATE "C" NOT NULL,
            kind text NOT NULL CHECK (kind IN ('changed', 'voided', 'reminder')),
            text text NOT NULL,
            due_at double precision NOT NULL,
            event_at double precision,
            created_at double precision NOT NULL,
            PRIMARY KEY ("user", id),
            UNIQUE ("user", pass_type_identifier, serial_number, kind, event_at)
        );
        CREATE INDEX notice_by_created ON passconduit.notice ("user", created_at, id);
        CREATE TABLE passconduit.notice_sent (
            "user" text COLLATE "C" NOT NULL,
            notice bigint NOT NULL,
            channel text NOT NULL CHECK (channel IN ('mail', 'desktop', 'web')),
            sent_at double precision NOT NULL,
            PRIMARY KEY ("user", notice, channel),
            FOREIGN KEY ("user", notice) REFERENCES passconduit.notice ("user", id) ON DELETE CASCADE
        );
        ALTER TABLE passconduit.notice ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.notice USING ("user" = current_setting('passconduit.user', true));
        ALTER TABLE passconduit.notice_sent ENABLE ROW LEVEL SECURITY;
        CREATE POLICY library_scope ON passconduit.notice_sent USING ("user" = current_setting('passconduit.user', true))
        """

    /// Issue 43 item 2: each library's own notice settings, chosen by its owner on the web
    /// Settings page, on its `library_user` row (which the web wallet's role may update and
    /// row-level security already scopes); each NULL is "as the host's config says". And a fourth
    /// channel, `chat` (the chat bot's direct message).
    static let v7 = """
        ALTER TABLE passconduit.library_user
            ADD COLUMN notices_enabled boolean,
            ADD COLUMN notice_boarding_pass_minutes integer CHECK (notice_boarding_pass_minutes BETWEEN 0 AND 20160),
            ADD COLUMN notice_event_ticket_minutes integer CHECK (notice_event_ticket_minutes BETWEEN 0 AND 20160),
            ADD COLUMN notice_other_minutes integer CHECK (notice_other_minutes BETWEEN 0 AND 20160);
        ALTER TABLE passconduit.notice_sent DROP CONSTRAINT notice_sent_channel_check,
            ADD CONSTRAINT notice_sent_channel_check CHECK (channel IN ('mail', 'desktop', 'web', 'chat'))
        """
}
