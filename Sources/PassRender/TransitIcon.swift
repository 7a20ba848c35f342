/// Wallet's glyph between a boarding pass's origin and destination, one per `transitType`: a plane,
/// a train, a bus, a boat, or an arrow for the generic type. One geometry in a 24-unit square, drawn
/// by cairo (PNG, PDF, SVG) and written as inline SVG (HTML), so every output shows the same icon
/// whatever fonts are installed (DejaVu has no train, bus or boat).
package enum TransitIcon: String, Sendable {
    case air, train, bus, boat, generic

    package init(transitType: String?) {
        switch transitType {
        case "PKTransitTypeAir": self = .air
        case "PKTransitTypeTrain": self = .train
        case "PKTransitTypeBus": self = .bus
        case "PKTransitTypeBoat": self = .boat
        default: self = .generic
        }
    }

    /// What a screen reader says for it.
    package var name: String {
        switch self {
        case .air: return "flight"
        case .train: return "train"
        case .bus: return "bus"
        case .boat: return "boat"
        case .generic: return "to"
        }
    }

    /// One filled shape: a polygon, a rounded rectangle or a circle. Holes (windows) are shapes
    /// filled in `hole` mode: they are cut out of what is under them (even-odd within one path).
    enum Shape {
        case polygon([(Double, Double)])
        case rect(x: Double, y: Double, w: Double, h: Double, r: Double)
        case circle(x: Double, y: Double, r: Double)
    }

    /// The shapes, in a 24 x 24 box; those in `holes` are windows cut out of the body.
    var shapes: (body: [Shape], holes: [Shape]) {
        switch self {
        case .air:
            // A plane seen from above, nose to the right.
            return ([.polygon([(2, 10.5), (9, 10.5), (5, 3), (8, 3), (14, 10.5), (20, 10.5), (22.5, 12), (20, 13.5),
                               (14, 13.5), (8, 21), (5, 21), (9, 13.5), (2, 13.5), (1.5, 12)]),
                     .polygon([(1, 8), (3, 8), (5, 10.5), (2, 10.5)]), .polygon([(1, 16), (3, 16), (5, 13.5), (2, 13.5)])], [])
        case .train:
            return ([.rect(x: 5, y: 2, w: 14, h: 15, r: 3),
                     .polygon([(7.5, 17), (9.5, 17), (7, 22), (5, 22)]), .polygon([(14.5, 17), (16.5, 17), (19, 22), (17, 22)])],
                    [.rect(x: 7, y: 4.5, w: 10, h: 5.5, r: 1), .circle(x: 8.5, y: 13.5, r: 1.3), .circle(x: 15.5, y: 13.5, r: 1.3)])
        case .bus:
            return ([.rect(x: 3.5, y: 3, w: 17, h: 14.5, r: 2.5), .circle(x: 7.5, y: 19.8, r: 2), .circle(x: 16.5, y: 19.8, r: 2)],
                    [.rect(x: 5.5, y: 5, w: 13, h: 6, r: 1), .circle(x: 7, y: 14.5, r: 1.1), .circle(x: 17, y: 14.5, r: 1.1)])
        case .boat:
            return ([.polygon([(1.5, 14), (22.5, 14), (18.5, 20.5), (5.5, 20.5)]), .rect(x: 7, y: 8, w: 10, h: 6, r: 1),
                     .rect(x: 11, y: 3, w: 2, h: 5, r: 0)],
                    [.rect(x: 8.5, y: 9.5, w: 2.5, h: 2.5, r: 0.5), .rect(x: 13, y: 9.5, w: 2.5, h: 2.5, r: 0.5)])
        case .generic:
            // An arrow to the right.
            return ([.polygon([(2, 10.5), (15, 10.5), (15, 6), (22, 12), (15, 18), (15, 13.5), (2, 13.5)])], [])
        }
    }

    /// The icon as inline SVG (`currentColor`, `size` pixels square), for the HTML card.
    package func svg(size: Int) -> String {
        func d(_ shape: Shape) -> String {
            switch shape {
            case .polygon(let points):
                return "M" + points.map { "\(f($0.0)) \(f($0.1))" }.joined(separator: "L") + "Z"
            case .rect(let x, let y, let w, let h, let r):
                guard r > 0 else { return "M\(f(x)) \(f(y))h\(f(w))v\(f(h))h\(f(-w))Z" }
                return "M\(f(x + r)) \(f(y))h\(f(w - 2 * r))a\(f(r)) \(f(r)) 0 0 1 \(f(r)) \(f(r))v\(f(h - 2 * r))"
                    + "a\(f(r)) \(f(r)) 0 0 1 \(f(-r)) \(f(r))h\(f(-(w - 2 * r)))a\(f(r)) \(f(r)) 0 0 1 \(f(-r)) \(f(-r))"
                    + "v\(f(-(h - 2 * r)))a\(f(r)) \(f(r)) 0 0 1 \(f(r)) \(f(-r))Z"
            case .circle(let x, let y, let r):
                return "M\(f(x - r)) \(f(y))a\(f(r)) \(f(r)) 0 1 0 \(f(2 * r)) 0a\(f(r)) \(f(r)) 0 1 0 \(f(-2 * r)) 0Z"
            }
        }
        let (body, holes) = shapes
        let path = (body + holes).map(d).joined()
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 24 24\" width=\"\(size)\" height=\"\(size)\" aria-hidden=\"true\">"
            + "<path fill=\"currentColor\" fill-rule=\"evenodd\" d=\"\(path)\"/></svg>"
    }

    private func f(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v)
    }
}
