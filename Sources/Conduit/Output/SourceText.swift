import Foundation
import PassStore

/// A pass's chat provenance in words, as `show`, `offers` and the web wallet write it.
package enum SourceText {
    /// "Sent by @alice:example.org in room !abc:example.org (Matrix), event $xyz, Mon 7 Dec 2026,
    /// 20:15 UTC", or nil when no chat message carried the pass (mail and files say it their way).
    /// Plain text: the caller escapes it for its terminal or markup.
    package static func chat(_ source: PassSource, timeZone: TimeZone = .current) -> String? {
        guard source.isChat else { return nil }
        var text = source.sender.map { "Sent by \($0)" } ?? "Sent"
        if let room = source.room { text += " in room \(room)" }
        if let network = source.network { text += " (\(networkName(network)))" }
        if let event = source.eventID { text += ", event \(event)" }
        return text + ", " + DateText.human(source.receivedAt, timeZone: timeZone)
    }

    /// "matrix" -> "Matrix": the names people know; any other network as the bot gave it.
    package static func networkName(_ network: String) -> String {
        switch network.lowercased() {
        case "matrix": "Matrix"
        case "xmpp": "XMPP"
        case "signal": "Signal"
        case "telegram": "Telegram"
        case "whatsapp": "WhatsApp"
        case "deltachat", "delta chat": "Delta Chat"
        default: network
        }
    }

    /// The chat members of a source's JSON object, present only for a chat source so the JSON of
    /// mail and files stays as it was.
    package static func chatJSON(_ source: PassSource) -> [(String, JSONOutput)] {
        guard source.isChat else { return [] }
        return [("network", .string(source.network)), ("room", .string(source.room)),
                ("eventId", .string(source.eventID)), ("sender", .string(source.sender))]
    }
}
