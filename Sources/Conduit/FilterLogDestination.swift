/// Where `passconduit filter` writes its one line per message.
package enum FilterLogDestination: String, Sendable, Equatable {
    case file, syslog, none
}
