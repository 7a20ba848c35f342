import Conduit
/// What the delivery filter changes in a message's header, as a value any front end can apply:
/// the pipe (`passconduit filter`) renders it into bytes (`DeliveryFilter.write`), a milter sends
/// it as replies (remove: change header `occurrence` of `name` to empty; insert: header `i` of
/// `insert` at index `i`). Nothing else in a message is ever changed.
package struct HeaderEdits: Sendable, Equatable {
    /// One field we add. Its value is printable US-ASCII, without line breaks (`FilterHeaderWriter`
    /// made it so from hostile text); `atoms` are the pieces a fold may go between.
    package struct Field: Sendable, Equatable {
        package var name: String
        package var atoms: [String]

        package init(name: String, atoms: [String]) {
            self.name = name
            self.atoms = atoms
        }

        /// The unfolded value: the atoms joined by single spaces.
        package var value: String { atoms.joined(separator: " ") }

        /// `Name: value` + `lineEnding`, folded (line ending + one space) before an atom that would
        /// pass `preferredLineLength`; an atom longer than the hard limit is cut (cannot happen with
        /// the header writer's `maxValueCharacters` at its default, but the limit is a promise).
        package func line(lineEnding: [UInt8]) -> [UInt8] {
            var out = Array("\(name):".utf8)
            out += foldedValue(lineEnding: lineEnding)
            out += lineEnding
            return out
        }

        /// The value as it follows `Name:` on the line, with a leading space and the folds
        /// (`lineEnding` + one space) but no final line ending: what a milter sends as the value
        /// (with `lineEnding` `[10]`).
        package func foldedValue(lineEnding: [UInt8]) -> [UInt8] {
            let nameLength = name.utf8.count + 1
            var out: [UInt8] = []
            var lineLength = nameLength
            for atom in atoms {
                var bytes = Array(atom.utf8)
                let room = HeaderEdits.maxLineLength - 1    // the space before it
                if bytes.count > room - 1 { bytes = Array(bytes.prefix(room - 1)) }
                if lineLength + 1 + bytes.count > HeaderEdits.preferredLineLength && lineLength > nameLength {
                    out += lineEnding
                    lineLength = 0
                }
                out.append(0x20)
                out += bytes
                lineLength += 1 + bytes.count
            }
            return out
        }
    }

    /// One of our fields that arrived with the message (a forgery, or a second pass through the
    /// filter), to be removed with its continuation lines.
    package struct Removal: Sendable, Equatable {
        /// The field name as it arrived (its own case).
        package var name: String
        /// 1-based among the header's fields of this name, compared case-insensitively, counted
        /// from the top of the header block: the milter's header index.
        package var occurrence: Int
        /// Its bytes in the message, continuation lines and line ending included.
        package var range: Range<Int>

        package init(name: String, occurrence: Int, range: Range<Int>) {
            self.name = name
            self.occurrence = occurrence
            self.range = range
        }
    }

    /// Field names the filter writes, and therefore removes when they arrive.
    package static let summaryName = "X-Passconduit"
    package static let passName = "X-Passconduit-Pass"
    /// The field a notice passconduit sends carries (issue 43 item 2): the filter and the milter
    /// pass such a message unscanned (forged fields of our names still removed), so a notice is
    /// never scanned or staged. Not one of ours to remove: it stays on the notice. Written by
    /// `NoticeMail`, whose name this is.
    package static var noticeName: String { NoticeMail.headerName }
    /// Fold before a line would exceed this many octets where whitespace allows.
    package static let preferredLineLength = 78
    /// RFC 5322's hard line limit, never exceeded.
    package static let maxLineLength = 998

    /// Fields to add at the top of the header block (after a leading mbox `From ` line), in order.
    package var insert: [Field]
    /// Our fields to remove, in message order (ascending `range`).
    package var remove: [Removal]

    package init(insert: [Field] = [], remove: [Removal] = []) {
        self.insert = insert
        self.remove = remove
    }

    package var isEmpty: Bool { insert.isEmpty && remove.isEmpty }

    /// The inserted fields as header lines in `lineEnding`.
    package func insertedLines(lineEnding: [UInt8]) -> [UInt8] {
        insert.flatMap { $0.line(lineEnding: lineEnding) }
    }
}
