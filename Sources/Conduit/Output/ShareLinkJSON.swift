import Foundation
import PassStore

/// JSON for a share link (`share --json`, and the web wallet's `/api/v1/passes/SHA/links`):
/// never its secret, which only the answer that made the link carries (as its `url`).
package enum ShareLinkJSON {
    package static func object(_ link: ShareLink, now: Date = Date()) -> JSONOutput {
        .object([
            ("id", .int(link.id)),
            ("pass", .string(link.passID.description)),
            ("created", .date(link.created)),
            ("expires", .date(link.expires)),
            ("oneDownload", .bool(link.oneDownload)),
            ("state", .string(link.state(at: now).rawValue)),
            ("uses", .int(Int64(link.uses))),
            ("lastUsed", .date(link.lastUsed)),
        ])
    }
}
