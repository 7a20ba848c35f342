import Foundation
import Support

/// Why a request to a pass's web service did not give a usable answer: a stable code, a sentence
/// for the user, a technical detail (never the authentication token).
package struct UpdateFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// The webServiceURL cannot be used (not a URL, not http/https, userinfo).
        case badURL = "bad-url"
        /// http:// to a host that is not loopback.
        case insecureURL = "insecure-url"
        /// 401: the issuer refused the pass's authentication token.
        case tokenRefused = "token-refused"
        /// 404 or 410: the issuer no longer knows this pass (it is kept).
        case passGone = "pass-gone"
        /// 429, 5xx: the server asks to try later.
        case tryLater = "try-later"
        /// No answer in time (10 s per request, or the run's time limit).
        case timeout
        /// Could not connect, TLS refused, connection reset or closed early.
        case unreachable
        /// The body was larger than the pass size limit.
        case tooLarge = "too-large"
        /// A redirect to another host, or too many redirects.
        case redirectRefused = "redirect-refused"
        /// Any other answer the protocol does not allow here.
        case badResponse = "bad-response"
    }

    package var code: Code
    package var message: String
    package var detail: String
    /// The HTTP status when the server answered.
    package var http: Int?
    /// When the server said to come back (Retry-After), as an absolute time.
    package var retryAfter: Date?

    package init(_ code: Code, _ message: String, detail: String, http: Int? = nil, retryAfter: Date? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
        self.http = http
        self.retryAfter = retryAfter
    }

    /// True when trying again later may work (exit 75): the server or the network, not the pass.
    package var isTemporary: Bool {
        switch code {
        case .tryLater, .timeout, .unreachable: return true
        default: return false
        }
    }

    package var description: String { "\(message) (\(detail))" }
}

extension UpdateFailure: ProblemReporting {
    package var problem: Problem { Problem(code.problemCode, message: message, detail: detail) }
}

extension UpdateFailure.Code {
    /// The shared code of this one; the raw strings are the same.
    package var problemCode: Problem.Code {
        switch self {
        case .badURL: return .badURL
        case .insecureURL: return .insecureURL
        case .tokenRefused: return .tokenRefused
        case .passGone: return .passGone
        case .tryLater: return .tryLater
        case .timeout: return .timeout
        case .unreachable: return .unreachable
        case .tooLarge: return .tooLarge
        case .redirectRefused: return .redirectRefused
        case .badResponse: return .badResponse
        }
    }
}
