/// A pass field's `changeMessage` filled in the way Wallet does: `%@` and `%1$@` become the new
/// value, `%%` a percent sign; anything else is left as written. The one formatter: the update
/// diff (PassStore's `FieldChange`) and the rendered card's change notices (WalletPass) use it.
package enum ChangeMessage {
    package static func fill(_ format: String, with value: String) -> String {
        var out = ""
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            let after = rest[percent...]
            if after.hasPrefix("%@") {
                out += value
                rest = after.dropFirst(2)
            } else if after.hasPrefix("%1$@") {
                out += value
                rest = after.dropFirst(4)
            } else if after.hasPrefix("%%") {
                out += "%"
                rest = after.dropFirst(2)
            } else {
                out += "%"
                rest = after.dropFirst()
            }
        }
        return out + rest
    }
}
