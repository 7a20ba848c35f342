import Foundation
import XCTest

extension Sandbox {
    /// Runs a shell line on a pseudo-terminal in `cwd` with `path` as PATH, answering "y" to every
    /// question; gives up after `timeout` seconds (exit 124) so a prompt nobody sees cannot hang the suite.
    func runShellOnTerminal(_ line: String, path: String, cwd: URL, timeout: Int = 60) throws -> Run {
        let script = """
        import os, pty, sys, json, select, time, signal
        argv = json.loads(sys.argv[1]); env = json.loads(sys.argv[2]); cwd = sys.argv[3]; limit = float(sys.argv[4])
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        out = b""; pending = b""; deadline = time.time() + limit; status = None
        while True:
            left = deadline - time.time()
            if left <= 0:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0); sys.stdout.write(out.decode("utf-8", "replace")); sys.exit(124)
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data; pending += data
            if b"[y/N]" in pending:
                pending = b""
                os.write(fd, b"y\\n")
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(out.decode("utf-8", "replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """
        var env = environment
        env["PATH"] = path
        env["TERM"] = "xterm"
        env["NO_COLOR"] = "1"
        func json(_ value: Any) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, try json(["/bin/bash", "-c", line]), try json(env), cwd.path, String(timeout)]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus,
                   stdout: String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"), stderr: "")
    }
}
