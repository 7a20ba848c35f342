import Foundation
import XCTest

/// What a test that drops privileges to `nobody` needs, copied where that user can read it.
///
/// The checkout may sit in a folder nobody else can enter (a clone in `mktemp -d`, a home with
/// mode 0700): there `nobody` cannot run `.build/debug/passconduit` or read `Samples/ca/trust`,
/// and every such test failed with "permission denied". The copy is laid out like an installed
/// tree (`bin/`, `share/passconduit/trust`, `share/passconduit/passconduit.magic`), so the copied
/// binary finds the shipped anchors and magic rules the way an installed one does.
enum Unprivileged {
    /// Whether tests drop privileges at all (they do only when run as root).
    static var dropsPrivileges: Bool { geteuid() == 0 }

    /// A world-readable folder of its own per test process.
    static var root: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("pc-nobody-\(getpid())")
    }

    /// `passconduit` as `nobody` can run it: the copy when dropping privileges, else the build's own.
    static func binary() throws -> String {
        guard dropsPrivileges else { return Binary.url.path }
        try prepare()
        return root.appendingPathComponent("bin/passconduit").path
    }

    /// The test CA's trust folder (`Samples/ca/trust`) where `nobody` can read it.
    static func sampleTrust() throws -> String {
        guard dropsPrivileges else { return Run.sample("ca/trust") }
        try prepare()
        return root.appendingPathComponent("sample-trust").path
    }

    /// Removes the copy (each class that uses it calls this from its class tearDown).
    static func cleanUp() {
        try? FileManager.default.removeItem(at: root)
    }

    /// Makes the copy once per process (again after a cleanUp): every folder 0755, files 0644,
    /// the binary 0755. Also checks the result as `nobody` would see it, so a failure names the
    /// path instead of surfacing later as a puzzling "permission denied" from dovecot or a scan.
    private static func prepare() throws {
        let fm = FileManager.default
        let binary = root.appendingPathComponent("bin/passconduit")
        if fm.isExecutableFile(atPath: binary.path) { return }
        let repo = Run.root
        let share = root.appendingPathComponent("share/passconduit")
        for dir in [root, root.appendingPathComponent("bin"), share] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            chmod(dir.path, 0o755)   // createDirectory's mode is filtered by the umask
        }
        try copyFolder(repo.appendingPathComponent("Samples/ca/trust"), to: root.appendingPathComponent("sample-trust"))
        try copyFolder(repo.appendingPathComponent("Config/trust"), to: share.appendingPathComponent("trust"))
        let magic = repo.appendingPathComponent("Config/passconduit.magic")
        if fm.fileExists(atPath: magic.path) {
            try copyFile(magic, to: share.appendingPathComponent("passconduit.magic"), mode: 0o644)
        }
        // The binary last: its presence marks a finished copy.
        try copyFile(Binary.url, to: binary, mode: 0o755)
    }

    private static func copyFolder(_ from: URL, to: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: to, withIntermediateDirectories: true)
        chmod(to.path, 0o755)
        for name in try fm.contentsOfDirectory(atPath: from.path) {
            let source = from.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: source.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                try copyFolder(source, to: to.appendingPathComponent(name))
            } else {
                try copyFile(source, to: to.appendingPathComponent(name), mode: 0o644)
            }
        }
    }

    private static func copyFile(_ from: URL, to: URL, mode: mode_t) throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: to.path) { try fm.removeItem(at: to) }
        try fm.copyItem(at: from, to: to)
        chmod(to.path, mode)
    }
}
