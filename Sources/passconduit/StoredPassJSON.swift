import Conduit
import Foundation
import PassStore
import WalletPass

/// JSON for library passes (`list --json`, `show --json`); README "JSON output".
enum StoredPassJSON {
    static func object(_ pass: StoredPass) -> JSONOutput {
        .object(members(pass))
    }

    /// `list --json`: the stored record and the pass's group (one trip, one order).
    static func listObject(_ item: LibraryView.Item) -> JSONOutput {
        var members = members(item.pass)
        members.append(("groupingIdentifier", .string(item.times.groupingIdentifier)))
        return .object(members)
    }

    static func members(_ pass: StoredPass) -> [(String, JSONOutput)] {
        [
            ("schema", .int(FoundPassJSON.schema)),
            ("id", .string(pass.id.description)),
            ("passTypeIdentifier", .string(pass.id.passTypeIdentifier)),
            ("serialNumber", .string(pass.id.serialNumber)),
            ("teamIdentifier", .string(pass.teamIdentifier)),
            ("status", .string(pass.status)),
            ("organizationName", .string(pass.organizationName)),
            ("description", .string(pass.description)),
            ("kind", .string(pass.kind)),
            ("relevantDate", .date(pass.relevantDate)),
            ("expirationDate", .date(pass.expirationDate)),
            ("voided", .bool(pass.voided)),
            ("signer", .object([("subject", .string(pass.signerSubject)), ("signingTime", .date(pass.signingTime))])),
            ("source", pass.source.map {
                .object([("messageId", .string($0.messageID)), ("subject", .string($0.subject)),
                         ("file", .path($0.file)), ("receivedAt", .date($0.receivedAt))])
            } ?? .null),
            ("addedAt", .date(pass.addedAt)),
            ("updatedAt", .date(pass.updatedAt)),
            ("sha256", .string(pass.sha256)),
        ]
    }

    /// `show --json`: the stored record plus the localized fields and barcodes of the opened pass.
    static func detailed(_ pass: StoredPass, info: PassInfo?, verdict: PassVerdict) -> JSONOutput {
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
}
