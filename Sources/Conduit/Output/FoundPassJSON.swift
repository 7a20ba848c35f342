import Foundation
import PassStore
import WalletPass

/// The NDJSON form of a found pass (README "JSON output", DESIGN.md "Command-line contract").
/// Field names are a stable contract; `schema` goes up when one changes meaning.
package enum FoundPassJSON {
    package static let schema: Int64 = 1

    package static func object(_ found: FoundPass) -> JSONOutput {
        let verdict = found.verdict
        return .object([
            ("schema", .int(schema)),
            ("source", source(found.source)),
            ("status", .string(verdict.status.rawValue)),
            ("error", verdict.error.map(JSONOutput.problem) ?? .null),
            ("notes", .array(verdict.notes.map { .string($0) })),
            ("pass", verdict.pass.map { pass($0, sha256: verdict.sha256) } ?? .null),
            ("sha256", .string(verdict.sha256)),
            ("library", .string(found.library?.rawValue)),
        ])
    }

    static func source(_ source: PassSourceInfo) -> JSONOutput {
        var members: [(String, JSONOutput)] = [
            ("input", .path(source.input)),
            ("message", source.message.map { .int(Int64($0)) } ?? .null),
            ("messageId", .string(source.messageID)),
            ("subject", .string(source.subject)),
            ("part", .string(source.part)),
            ("filename", .string(source.filename)),
            ("contentType", .string(source.contentType)),
            ("detectedBy", .array(source.detectedBy.map { .string($0.rawValue) })),
            ("member", .string(source.member)),
        ]
        if let path = source.messagePath { members.insert(("messagePath", .path(path)), at: 2) }
        return .object(members)
    }

    static func pass(_ info: PassInfo, sha256: String) -> JSONOutput {
        .object([
            ("passTypeIdentifier", .string(info.passTypeIdentifier)),
            ("serialNumber", .string(info.serialNumber)),
            ("teamIdentifier", .string(info.teamIdentifier)),
            ("organizationName", .string(info.organizationName)),
            ("description", .string(info.description)),
            ("kind", .string(info.kind.rawValue)),
            ("kindName", .string(info.kindName)),
            ("relevantDate", .date(info.relevantDate)),
            ("expirationDate", .date(info.expirationDate)),
            ("voided", .bool(info.voided)),
            ("signer", info.signer.map {
                .object([("subject", .string($0.subject)), ("signingTime", .date($0.signingTime))])
            } ?? .null),
            ("icon", info.icon.map {
                .object([("file", .string($0.file)), ("width", .int(Int64($0.width))), ("height", .int(Int64($0.height)))])
            } ?? .null),
            ("sha256", .string(sha256)),
            // The name and type to send it on with, whatever label it arrived under.
            ("filename", .string(PassFileName.name(info))),
            ("contentType", .string(PassFileName.contentType)),
        ])
    }
}
