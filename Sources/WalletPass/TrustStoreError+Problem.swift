import Support

extension TrustStoreError: ProblemReporting {
    package var problem: Problem {
        Problem(.trustStoreUnreadable, message: "The certificates this computer trusts for passes could not be loaded.", detail: description)
    }
}
