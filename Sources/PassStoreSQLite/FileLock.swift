import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PassStore

/// An exclusive `flock` on a side file, held while a process opens and migrates the library:
/// GRDB's migrator is not safe when several processes open a fresh library at once
/// (research/swift-feasibility.md §2d). Waiting is bounded by a deadline, never a blocking flock.
final class FileLock {
    private let fd: Int32

    /// Opens (creating 0600) and locks `path`, polling for `timeout` seconds (monotonic clock).
    init(path: String, timeout: TimeInterval, libraryPath: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw LibraryError(.cannotCreate, "cannot open the lock file \(path): \(LibraryFile.errnoText())",
                               path: libraryPath)
        }
        let deadline = PassLibrary.deadline(after: timeout)
        var pause: UInt32 = 1_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                close(fd)
                throw LibraryError(.io, "cannot lock \(path): \(String(cString: strerror(failure)))", path: libraryPath)
            }
            if ContinuousClock.now > deadline {
                close(fd)
                throw LibraryError(.busy, "another process has held \(path) for more than \(Int(timeout)) s",
                                   path: libraryPath)
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        self.fd = fd
    }

    deinit {
        // Closing the descriptor releases the lock.
        close(fd)
    }
}
