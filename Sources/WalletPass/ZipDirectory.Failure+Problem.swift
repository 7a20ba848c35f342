import Support

extension ZipDirectory.Failure: ProblemReporting {
    /// The codes and sentences of the `PassError`s `PassArchive` makes of these.
    var problem: Problem {
        switch self {
        case .notAZip(let why):
            return Problem(.notAZip, message: PassError.message(for: .notAZip), detail: why)
        case .tooManyEntries(let count):
            return Problem(.tooLarge, message: PassError.message(for: .tooLarge), detail: "the archive declares \(count) entries")
        }
    }
}
