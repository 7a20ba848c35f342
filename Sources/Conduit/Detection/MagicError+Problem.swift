import Support

extension MagicError: ProblemReporting {
    package var problem: Problem {
        Problem(.magicUnavailable, message: "File types cannot be recognised on this computer: libmagic could not be started.", detail: message)
    }
}
