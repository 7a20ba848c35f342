import Foundation
import PassStore

/// When a pass is due for a check in timer mode (`update --quiet`): hourly while its relevant
/// date is within 48 hours, daily otherwise, never once it expired or was voided. The systemd
/// timer only wakes the command; this decides.
package struct UpdateSchedule: Sendable {
    package var soonWindow: TimeInterval = 48 * 3600
    package var soonInterval: TimeInterval = 3600
    package var laterInterval: TimeInterval = 86_400
    /// A check that ran this much before the interval counts as due (timers drift).
    package var slack: TimeInterval = 300

    package init() {}

    /// Why a pass is never checked without being named (nil when it may be).
    package func retired(_ pass: StoredPass, now: Date) -> String? {
        if pass.voided { return "This pass was voided by its issuer; it is not checked for updates." }
        if let expires = pass.expirationDate, expires < now { return "This pass expired; it is not checked for updates." }
        return nil
    }

    package func isDue(_ pass: StoredPass, lastChecked: Date?, now: Date) -> Bool {
        guard let lastChecked else { return true }
        let soon = pass.relevantDate.map { abs($0.timeIntervalSince(now)) <= soonWindow } ?? false
        let interval = soon ? soonInterval : laterInterval
        return now.timeIntervalSince(lastChecked) >= interval - slack
    }
}
