import Foundation

/// Where a pass came from: the message that carried it, a file, or a chat message (the network,
/// room, event and sender a bot saw it in).
package struct PassSource: Sendable, Equatable {
    package var messageID: String?
    package var subject: String?
    package var file: String?
    package var receivedAt: Date
    /// The chat network ("matrix"); nil for mail and files.
    package var network: String?
    package var room: String?
    package var eventID: String?
    package var sender: String?

    package init(messageID: String? = nil, subject: String? = nil, file: String? = nil, receivedAt: Date,
                 network: String? = nil, room: String? = nil, eventID: String? = nil, sender: String? = nil) {
        self.messageID = messageID
        self.subject = subject
        self.file = file
        self.receivedAt = receivedAt
        self.network = network
        self.room = room
        self.eventID = eventID
        self.sender = sender
    }

    /// Whether a chat message carried the pass (any of the chat fields is set).
    package var isChat: Bool { network != nil || room != nil || eventID != nil || sender != nil }
}
