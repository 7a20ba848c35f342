import DeliveryFilter

/// The plan's header changes in the milter's terms: fields to insert at the top (name, value
/// with its leading space and `\n` + space folds), and our incoming fields to remove by name and
/// 1-based occurrence.
struct MilterEdits {
    struct Field { var name: String; var value: [UInt8] }
    struct Removal { var name: String; var occurrence: Int }
    var insert: [Field] = []
    var remove: [Removal] = []

    init(plan: FilterPlan, message: MilterMessage) {
        guard case .rewritten(let headers, _) = plan.output else { return }
        // The header writer's lines, split back into fields (continuation lines joined with LF).
        var current: (name: [UInt8], value: [UInt8])? = nil
        var lines = headers.split(separator: 10, omittingEmptySubsequences: true).map { line -> ArraySlice<UInt8> in
            line.last == 13 ? line.dropLast() : line
        }
        lines.append([])  // flushes the last field
        for line in lines {
            if let first = line.first, first == 0x20 || first == 0x09, current != nil {
                current!.value += [10] + line
                continue
            }
            if let c = current { insert.append(Field(name: String(decoding: c.name, as: UTF8.self), value: c.value)) }
            current = nil
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            current = (Array(line[..<colon]), Array(line[(colon + 1)...]))
        }
        remove = message.ownFields.map { Removal(name: $0.name, occurrence: $0.occurrence) }
    }
}
