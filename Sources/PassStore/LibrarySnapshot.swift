import Foundation

/// Everything a library holds, row for row: what `passconduit library copy` moves between
/// backends. Passes with every kept version, offers with their ids, the change log with its
/// sequence numbers and field changes, the bytes once per SHA-256, and the web-service memory.
/// Two libraries with equal snapshots hold the same data.
package struct LibrarySnapshot: Sendable, Equatable {
    package struct Version: Sendable, Equatable {
        /// The pass's metadata as it was (previousVersions unused: 0).
        package var pass: StoredPass
        package var replacedAt: Date
        package init(pass: StoredPass, replacedAt: Date) {
            self.pass = pass
            self.replacedAt = replacedAt
        }
    }

    package struct Tag: Sendable, Equatable, Hashable {
        package var webServiceURL: String
        package var passTypeIdentifier: String
        package var tag: String
        package init(webServiceURL: String, passTypeIdentifier: String, tag: String) {
            self.webServiceURL = webServiceURL
            self.passTypeIdentifier = passTypeIdentifier
            self.tag = tag
        }
    }

    /// A notice as the library keeps it, with the channels that claimed it and when.
    package struct NoticeRow: Sendable, Equatable {
        package var id: Int64
        package var passID: PassID
        package var kind: Notice.Kind
        package var text: String
        package var due: Date
        package var eventAt: Date?
        package var created: Date
        /// (channel, when it claimed the notice), by channel.
        package var sent: [Sent]

        package struct Sent: Sendable, Equatable {
            package var channel: String
            package var at: Date
            package init(channel: String, at: Date) {
                self.channel = channel
                self.at = at
            }
        }

        package init(id: Int64, passID: PassID, kind: Notice.Kind, text: String, due: Date, eventAt: Date?, created: Date, sent: [Sent]) {
            self.id = id
            self.passID = passID
            self.kind = kind
            self.text = text
            self.due = due
            self.eventAt = eventAt
            self.created = created
            self.sent = sent
        }
    }

    /// Current passes, by id (type, then serial).
    package var passes: [StoredPass] = []
    /// Earlier versions, oldest first per pass (the order `revert` walks back through).
    package var versions: [Version] = []
    package var offers: [Offer] = []
    /// The whole change log, by sequence.
    package var changes: [ChangeEntry] = []
    /// The bytes of every pass, version and offer, by SHA-256.
    package var blobs: [String: [UInt8]] = [:]
    package var webServiceStates: [WebServiceState] = []
    package var registrations: [WebServiceRegistration] = []
    package var tags: [Tag] = []
    package var deviceLibraryIdentifier: String?
    /// The highest offer id and change-log sequence number ever given (declined offers and
    /// entries included), so the copy never gives one of them again.
    package var lastOfferID: Int64 = 0
    package var lastSequence: Int64 = 0
    /// The notices (issue 43) by id, with their claims, so a copy sends nothing twice; the
    /// highest notice id ever given; the library's own notice settings.
    package var notices: [NoticeRow] = []
    package var lastNoticeID: Int64 = 0
    package var noticePreferences = NoticePreferences()

    package init() {}

    /// Whether the library holds nothing a copy would overwrite.
    package var isEmpty: Bool {
        passes.isEmpty && versions.isEmpty && offers.isEmpty && changes.isEmpty && webServiceStates.isEmpty
            && registrations.isEmpty && tags.isEmpty
    }

    /// The same data in one canonical order, so snapshots of two backends compare equal.
    package var sorted: LibrarySnapshot {
        var s = self
        s.passes.sort { ($0.id.passTypeIdentifier, $0.id.serialNumber) < ($1.id.passTypeIdentifier, $1.id.serialNumber) }
        // Versions keep their order within a pass; passes in id order (a stable sort).
        let order = Dictionary(s.passes.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        s.versions = versions.enumerated().sorted { a, b in
            let ka = order[a.element.pass.id] ?? Int.max, kb = order[b.element.pass.id] ?? Int.max
            if ka != kb { return ka < kb }
            if a.element.pass.id != b.element.pass.id {
                return (a.element.pass.id.passTypeIdentifier, a.element.pass.id.serialNumber)
                    < (b.element.pass.id.passTypeIdentifier, b.element.pass.id.serialNumber)
            }
            return a.offset < b.offset
        }.map(\.element)
        s.offers.sort { $0.offerID < $1.offerID }
        s.changes.sort { $0.sequence < $1.sequence }
        s.webServiceStates.sort { ($0.id.passTypeIdentifier, $0.id.serialNumber) < ($1.id.passTypeIdentifier, $1.id.serialNumber) }
        s.registrations.sort { ($0.id.passTypeIdentifier, $0.id.serialNumber) < ($1.id.passTypeIdentifier, $1.id.serialNumber) }
        s.tags.sort { ($0.webServiceURL, $0.passTypeIdentifier) < ($1.webServiceURL, $1.passTypeIdentifier) }
        s.notices.sort { $0.id < $1.id }
        for index in s.notices.indices { s.notices[index].sent.sort { $0.channel < $1.channel } }
        return s
    }

    /// What differs from `other`, in a few words per table (empty when equal).
    package func differences(from other: LibrarySnapshot) -> [String] {
        let a = sorted, b = other.sorted
        var out: [String] = []
        if a.passes != b.passes { out.append("passes (\(a.passes.count) vs \(b.passes.count))") }
        if a.versions != b.versions { out.append("kept versions (\(a.versions.count) vs \(b.versions.count))") }
        if a.offers != b.offers { out.append("offers (\(a.offers.count) vs \(b.offers.count))") }
        if a.changes != b.changes { out.append("change log (\(a.changes.count) vs \(b.changes.count) entries)") }
        if a.blobs != b.blobs { out.append("stored bytes (\(a.blobs.count) vs \(b.blobs.count) blobs)") }
        if a.webServiceStates != b.webServiceStates { out.append("web-service states") }
        if a.registrations != b.registrations { out.append("registrations") }
        if a.tags != b.tags { out.append("update tags") }
        if a.deviceLibraryIdentifier != b.deviceLibraryIdentifier { out.append("device library identifier") }
        if a.lastOfferID != b.lastOfferID || a.lastSequence != b.lastSequence { out.append("offer and sequence counters") }
        if a.notices != b.notices { out.append("notices (\(a.notices.count) vs \(b.notices.count))") }
        if a.lastNoticeID != b.lastNoticeID { out.append("notice counter") }
        if a.noticePreferences != b.noticePreferences { out.append("notice settings") }
        return out
    }
}
