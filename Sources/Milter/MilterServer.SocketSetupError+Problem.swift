import Support

extension MilterServer.SocketSetupError: ProblemReporting {
    /// The socket was bound but its owner, group or mode could not be set: the daemon does not
    /// start. The sentence names what could not be done and the system's reason.
    var problem: Problem { Problem(.cannotListen, message: description) }
}
