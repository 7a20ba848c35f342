import Foundation

/// Where a pass came from: the message that carried it, or a file.
package struct PassSource: Sendable, Equatable {
    package var messageID: String?
    package var subject: String?
    package var file: String?
    package var receivedAt: Date

    package init(messageID: String? = nil, subject: String? = nil, file: String? = nil, receivedAt: Date) {
        self.messageID = messageID
        self.subject = subject
        self.file = file
        self.receivedAt = receivedAt
    }
}
