/// libmagic could not be started or its databases could not be loaded.
package struct MagicError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
