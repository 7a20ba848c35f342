import Foundation
import WalletPass

/// The face of a pass drawn in one of the new layouts, as lines for a terminal (`show`): what the
/// card shows instead of the classic rows, which `show` lists as the pass's fields. nil for a
/// classic card (its fields are what it shows).
package enum CardFaceText {
    /// The layout's name and its lines (label, value), from the same faces the cards draw.
    package static func lines(_ info: PassInfo) -> (layout: String, lines: [(label: String, value: String)])? {
        let choice = info.scheme
        var out: [(String, String)] = []
        func add(_ label: String, _ value: String?) {
            if let value, !value.isEmpty { out.append((label, value)) }
        }
        switch choice.scheme {
        case .posterEventTicket:
            let face = PosterFace(info: info)
            add("Teams", face.teams)
            add("Title", face.title)
            add("Date", [face.date, face.time].compactMap { $0 }.joined(separator: ", "))
            for cell in face.footerCells { add(cell.label, cell.value) }
        case .semanticBoardingPass:
            let face = BoardingFace(info: info)
            add("Flight", [face.flight, face.day].compactMap { $0 }.joined(separator: ", "))
            add("From", "\(face.departure.code) \(face.departure.city)" + (face.departure.time.map { ", departs \($0)" } ?? ""))
            add("To", "\(face.destination.code) \(face.destination.city)" + (face.destination.time.map { ", arrives \($0)" } ?? ""))
            add("BOARDING", face.boardingTime)
            for cell in face.cells { add(cell.label, cell.value) }
            add("PASSENGER", face.passenger)
            add("Badges", face.badges.joined(separator: ", "))
        case .posterGeneric:
            guard let fields = info.posterGenericFields else { return nil }
            let face = PosterGenericFace(info: info, fields: fields)
            if let header = face.header { add(header.label, header.value) }
            add("Title", face.title)
            for cell in face.primary { add(cell.label, cell.value) }
            if let footer = face.footer { add(footer.label, footer.value) }
        case .boardingPass, .coupon, .eventTicket, .generic, .storeCard:
            return nil
        }
        return (choice.scheme.name, out)
    }
}
