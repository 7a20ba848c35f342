import Support

extension ConfigError: ProblemReporting {
    /// The kind's code (same string); the sentence names file, line and key, as `description` does.
    package var problem: Problem { Problem(kind.problemCode, message: description) }
}

extension ConfigError.Kind {
    package var problemCode: Problem.Code {
        switch self {
        case .unreadable: return .unreadable
        case .syntax: return .syntax
        case .unknownKey: return .unknownKey
        case .badValue: return .badValue
        }
    }
}
