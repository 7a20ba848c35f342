import Support

extension LibraryError: ProblemReporting {
    /// The kind's code (same string), the sentence, and the library's path or location as detail
    /// (the same text `description` already shows).
    package var problem: Problem { Problem(kind.problemCode, message: message, detail: path) }
}

extension LibraryError.Kind {
    /// The shared code of this kind; the raw strings are the same.
    package var problemCode: Problem.Code {
        switch self {
        case .notALibrary: return .notALibrary
        case .cannotCreate: return .cannotCreate
        case .notFound: return .notFound
        case .ambiguousID: return .ambiguousID
        case .refused: return .refused
        case .io: return .io
        case .busy: return .busy
        case .exists: return .exists
        case .newerSchema: return .newerSchema
        case .unavailable: return .unavailable
        }
    }
}
