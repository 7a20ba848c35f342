import Foundation
import PassStore
import WalletPass

/// JSON for library passes (`list --json`, `show --json`, and the web wallet's `/api/v1`, which
/// answers with the very same objects); README "JSON output".
package enum StoredPassJSON {
    package static func object(_ pass: StoredPass) -> JSONOutput {
        .object(members(pass))
    }

    /// `list --json`: the stored record and the pass's group (one trip, one order).
    package static func listObject(_ item: LibraryView.Item) -> JSONOutput {
        var members = members(item.pass)
        members.append(("groupingIdentifier", .string(item.times.groupingIdentifier)))
        return .object(members)
    }

    package static func members(_ pass: StoredPass) -> [(String, JSONOutput)] {
        [
            ("schema", .int(FoundPassJSON.schema)),
            ("id", .string(pass.id.description)),
            ("passTypeIdentifier", .string(pass.id.passTypeIdentifier)),
            ("serialNumber", .string(pass.id.serialNumber)),
            ("teamIdentifier", .string(pass.teamIdentifier)),
            ("status", .string(pass.status.rawValue)),
            ("organizationName", .string(pass.organizationName)),
            ("description", .string(pass.description)),
            ("kind", .string(pass.kind)),
            ("relevantDate", .date(pass.relevantDate)),
            ("expirationDate", .date(pass.expirationDate)),
            ("voided", .bool(pass.voided)),
            ("signer", .object([("subject", .string(pass.signerSubject)), ("signingTime", .date(pass.signingTime))])),
            ("source", pass.source.map {
                .object([("messageId", .string($0.messageID)), ("subject", .string($0.subject)),
                         ("file", .path($0.file)), ("receivedAt", .date($0.receivedAt))] + SourceText.chatJSON($0))
            } ?? .null),
            ("addedAt", .date(pass.addedAt)),
            ("updatedAt", .date(pass.updatedAt)),
            ("sha256", .string(pass.sha256)),
        ]
    }

    /// `show --json`: the stored record plus the localized fields and barcodes of the opened pass.
    package static func detailed(_ pass: StoredPass, info: PassInfo?, verdict: PassVerdict) -> JSONOutput {
        var members = members(pass)
        if let info {
            // The stored texts are in the language of the day the pass was added; show uses --lang.
            for (index, member) in members.enumerated() {
                if member.0 == "organizationName" { members[index].1 = .string(info.organizationName) }
                if member.0 == "description" { members[index].1 = .string(info.description) }
            }
            func fields(_ list: [PassField]) -> JSONOutput {
                .array(list.map {
                    .object([("key", .string($0.key)), ("label", .string($0.label)), ("value", .string($0.value)),
                             ("changeMessage", .string($0.changeMessage))])
                })
            }
            members.append(("kindName", .string(info.kindName)))
            members.append(("language", .string(info.language)))
            members.append(("fields", .object(PassFieldGroup.allCases.map { ($0.name, fields($0.fields(of: info))) })))
            members.append(("barcodes", .array(info.barcodes.map {
                .object([("format", .string($0.format)), ("message", .string($0.message)), ("altText", .string($0.altText))])
            })))
        }
        // "status" stays the stored verdict, as in list --json; today's re-check is labelled so.
        members.append(("verification", Recheck(stored: pass.status, verdict: verdict).json))
        return .object(members)
    }

    /// `show --json`'s whole object: `detailed` and the pass's last update check.
    package static func show(_ pass: StoredPass, verdict: PassVerdict, lastUpdateCheck: WebServiceState?) -> JSONOutput {
        var object = detailed(pass, info: verdict.pass, verdict: verdict)
        if case .object(var members) = object {
            members.append(("lastUpdateCheck", UpdateCheckJSON.json(lastUpdateCheck)))
            object = .object(members)
        }
        return object
    }
}

/// `show --json`'s "lastUpdateCheck".
package enum UpdateCheckJSON {
    package static func json(_ state: WebServiceState?) -> JSONOutput {
        guard let state, let at = state.checkedAt else { return .null }
        return .object([
            ("at", .date(at)),
            ("outcome", .string(state.outcome)),
            ("http", state.http.map { .int(Int64($0)) } ?? .null),
            ("errorCode", .string(state.errorCode)),
            ("message", .string(state.message)),
            ("retryAfter", .date(state.retryAfter)),
        ])
    }
}
