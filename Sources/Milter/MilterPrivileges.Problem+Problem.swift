import Support

extension MilterPrivileges.Problem: ProblemReporting {
    /// A `--user`/`--group` value that cannot be used is a usage error; a daemon that was not
    /// started as root may not change its user. The command line turns the code into 64 or 77.
    package var problem: Problem { Problem(usage ? .usage : .noPermission, message: sentence) }
}
