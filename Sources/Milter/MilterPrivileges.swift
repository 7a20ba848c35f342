#if canImport(Glibc)
import Glibc
#endif

/// `--user USER [--group GROUP]`: the daemon is started as root (to bind a privileged port or a
/// socket in a root-owned folder), binds, gives the Unix socket its owner and group, and then
/// becomes USER for good before it reads any mail or starts a scan worker: supplementary groups
/// (initgroups), then the group (setgid), then the user (setuid), each result checked, and then
/// a check that root cannot be regained. The workers, exec'd later, inherit the user.
package struct MilterPrivileges: Sendable, Equatable {
    package var user: String
    package var uid: uid_t
    package var gid: gid_t
    /// The group's name (or number) as given, for the log.
    package var groupName: String

    /// Why `--user`/`--group` cannot be used, as a sentence; `usage` is a wrong value, otherwise
    /// the process may not change its user (its `problem`'s code; the command line exits 64 or 77).
    package struct Problem: Error, Sendable {
        package var sentence: String
        package var usage: Bool
    }

    /// Looks the user (and the group, default: the user's own) up. Refuses root, a user or group
    /// that does not exist, and a process that is not root (it could not change its user).
    package static func resolve(user: String, group: String?, euid: uid_t = geteuid()) -> Result<MilterPrivileges, Problem> {
        // getpwnam/getgrnam return static storage: each value is copied at once.
        var found: (name: String, uid: uid_t, gid: gid_t)?
        if !user.isEmpty, let p = getpwnam(user) ?? uid_t(user).flatMap({ getpwuid($0) }) {
            found = (String(cString: p.pointee.pw_name), p.pointee.pw_uid, p.pointee.pw_gid)
        }
        guard let entry = found else {
            return .failure(Problem(sentence: "--user: there is no user \(user)", usage: true))
        }
        guard entry.uid != 0 else {
            return .failure(Problem(sentence: "--user \(user): the daemon does not run as root; name the user it should become (e.g. passconduit)", usage: true))
        }
        var gid = entry.gid
        var groupName = String(entry.gid)
        if let group {
            if let g = getgrnam(group)?.pointee.gr_gid {
                gid = g
            } else if let g = gid_t(group), getgrgid(g) != nil {
                gid = g
            } else {
                return .failure(Problem(sentence: "--group: there is no group \(group)", usage: true))
            }
            groupName = group
        } else if let name = getgrgid(entry.gid)?.pointee.gr_name {
            groupName = String(cString: name)
        }
        guard gid != 0 else {
            return .failure(Problem(sentence: "--group \(groupName): the daemon does not run in the root group; name another", usage: true))
        }
        guard euid == 0 else {
            return .failure(Problem(sentence: "--user \(user): only a daemon started as root can become another user (this one runs as uid \(euid)); start it as root, or leave --user out and start it as \(user)", usage: false))
        }
        return .success(MilterPrivileges(user: entry.name, uid: entry.uid, gid: gid, groupName: groupName))
    }

    /// Makes `path`'s missing folders (0700) and the file itself (0600) and gives them to the
    /// user, so the log written after the drop can still be written. Run as root, before `drop`.
    package func prepareLog(_ path: String) {
        var folder = ""
        for component in path.split(separator: "/").dropLast() {
            folder += "/" + component
            if mkdir(folder, 0o700) == 0 { _ = chown(folder, uid, gid) }
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else { return }
        var st = stat()
        if fstat(fd, &st) == 0 && st.st_uid == 0 { _ = fchown(fd, uid, gid) }
        close(fd)
    }

    /// Becomes the user: groups, group, user, in that order; nil when done, else what failed.
    /// Every thread of the process changes (glibc applies set*id to all of them).
    package func drop() -> String? {
        guard initgroups(user, gid) == 0 else { return "cannot set the groups of \(user): \(Self.reason())" }
        guard setgid(gid) == 0 else { return "cannot change to group \(groupName) (gid \(gid)): \(Self.reason())" }
        guard setuid(uid) == 0 else { return "cannot change to user \(user) (uid \(uid)): \(Self.reason())" }
        guard getuid() == uid, geteuid() == uid, getgid() == gid, getegid() == gid else {
            return "the user or group did not change (uid \(getuid())/\(geteuid()), gid \(getgid())/\(getegid()))"
        }
        // Root must be gone for good: neither the user nor the group can be taken back.
        guard setuid(0) != 0, seteuid(0) != 0, setgid(0) != 0, setegid(0) != 0 else {
            return "root could be regained after changing to \(user): refusing to run"
        }
        return nil
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
