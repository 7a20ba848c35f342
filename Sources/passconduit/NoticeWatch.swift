import Conduit
import Foundation
import PassStore

/// The desktop notice's "Open the card" (issue 43 item 2): the notification offers its `default`
/// action (a click on it), and a small watcher process waits for that click and runs
/// `passconduit open` on the pass. The notification service announces a click with the
/// `ActionInvoked` signal; `gdbus monitor` shows the signals it broadcasts (GNOME Shell, KDE
/// Plasma, Xfce, mako do; a service that sends it only to the caller, as dunst does, is not
/// seen, and the click does nothing). The watcher ends on the click, when the notification is
/// closed, when the session bus goes, or after a day. Under systemd it runs as a transient user
/// unit of its own (`systemd-run --user`), so the timer's unit, whose /tmp is private and whose
/// processes end with it, does not take it along; elsewhere it is a process of its own session.
extension Notices {
    /// How long a watcher waits for a click at most.
    static let watchSeconds: TimeInterval = 86_400

    /// What `NoticeSender.desktopOpen` does for this command's library: starts the watcher. Nil
    /// for a library on a PostgreSQL server named on the command line (its location is not put
    /// into another process's arguments).
    static func openWatcher(_ options: GlobalOptions) -> (@Sendable (UInt32, String) -> Void)? {
        if let library = options.library, LibraryMap.isServer(library) { return nil }
        var forwarded: [String] = []
        if let library = options.library { forwarded += ["--library", library] }
        if let config = options.config { forwarded += ["--config", config] }
        for folder in options.trust { forwarded += ["--trust", folder] }
        if let lang = options.lang { forwarded += ["--lang", lang] }
        let global = forwarded
        return { id, sha in
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let watcher = [executable, "notices", "--watch-notification", String(id), "--open-pass", sha] + global
            let environment = ProcessInfo.processInfo.environment
            // A transient user unit when a user manager is there; a process of its own otherwise.
            let kept = ["PATH", "HOME", "LANG", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR",
                        "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CURRENT_DESKTOP", "TMPDIR", "BROWSER"]
            let setenv = kept.compactMap { name in environment[name].map { "--setenv=\(name)=\($0)" } }
            if environment["XDG_RUNTIME_DIR"] != nil,
               (try? NoticeSender.spawn("systemd-run", ["--user", "--quiet", "--collect"] + setenv + ["--"] + watcher, [])) == 0 {
                return
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
            process.arguments = watcher
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try? process.run()
        }
    }

    /// `notices --watch-notification ID --open-pass SHA256`: waits for notification `id` to be
    /// clicked, then opens the card of the pass whose SHA-256 is `sha`.
    static func watch(_ id: UInt32, open sha: String, global: GlobalOptions) throws -> ExitStatus {
        guard sha.utf8.count == 64, sha.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw CLIError("--open-pass wants a pass's SHA-256 (64 hex digits)", status: .usage)
        }
        let monitor = Process()
        monitor.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        monitor.arguments = ["gdbus", "monitor", "--session", "--dest", "org.freedesktop.Notifications",
                             "--object-path", "/org/freedesktop/Notifications"]
        let pipe = Pipe()
        monitor.standardOutput = pipe
        monitor.standardError = FileHandle.nullDevice
        monitor.standardInput = FileHandle.nullDevice
        try monitor.run()
        let pid = monitor.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + watchSeconds) { kill(pid, SIGTERM) }
        var buffer: [UInt8] = []
        var clicked = false
        reading: while true {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += chunk
            while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                if line.contains("org.freedesktop.Notifications.ActionInvoked (uint32 \(id), 'default')") {
                    clicked = true
                    break reading
                }
                if line.contains("org.freedesktop.Notifications.NotificationClosed (uint32 \(id), ") { break reading }
            }
            if buffer.count > 65_536 { buffer.removeAll() }
        }
        if monitor.isRunning { monitor.terminate() }
        monitor.waitUntilExit()
        guard clicked else { return .success }
        var arguments = ["open"]
        if let library = global.library { arguments += ["--library", library] }
        if let config = global.config { arguments += ["--config", config] }
        for folder in global.trust { arguments += ["--trust", folder] }
        if let lang = global.lang { arguments += ["--lang", lang] }
        let open = Process()
        open.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        open.arguments = arguments + [sha]
        try open.run()
        open.waitUntilExit()
        return ExitStatus(rawValue: open.terminationStatus) ?? .unavailable
    }
}
