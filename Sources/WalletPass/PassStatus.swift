/// The verdict in one word: `valid` (Wallet would accept it), `untrusted` (intact, but signed under
/// no trusted root), `invalid` (damaged, changed, incomplete, or signed wrongly).
package enum PassStatus: String, Sendable, Equatable {
    case valid, untrusted, invalid
}
