/// SplitMix64: the one seeded random generator of the test suites. Every random test starts it
/// from a fixed seed, so a failure is reproduced by running the test again (and a test that
/// wants variety across runs logs the seed it drew).
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    package var state: UInt64

    package init(state: UInt64) {
        self.state = state
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15   // the generator's arithmetic is modulo 2^64 by design
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<n (0 when n < 1), as a fuzzer's mutation picks positions.
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}
