#if canImport(Glibc)
import Glibc
#endif
import Support

extension SendFailure: ProblemReporting {
    /// `send` cannot listen: the sentence names the address and port and what to do; the detail
    /// is the system's words for the errno, when there was one.
    package var problem: Problem {
        Problem(.cannotListen, message: description, detail: code.map { String(cString: strerror($0)) })
    }
}
