/// A place in semantics (`venueLocation`, `departureLocation`, …): latitude and longitude in
/// degrees, only when both are numbers in range.
package struct PassCoordinate: Sendable, Equatable {
    package var latitude: Double
    package var longitude: Double

    init?(_ o: [String: JSONValue]) {
        guard let lat = o["latitude"]?.number, let lon = o["longitude"]?.number, lat.isFinite, lon.isFinite,
              (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        latitude = lat
        longitude = lon
    }
}
