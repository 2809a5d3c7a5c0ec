import AdminUnlocks

/// `au_locate`'s flags (include/adminunlocks.h).
struct LocateFlags: OptionSet {
    let rawValue: UInt32
    static let gcj02 = LocateFlags(rawValue: 1 << 0)
    static let strict = LocateFlags(rawValue: 1 << 1)
}

/// `au_placement_status`: the finest level's status, or invalid.
enum ABIPlacementStatus: UInt8 {
    case outside = 0, inside = 1, edge = 2, invalid = 3

    init(_ status: PlacementStatus) {
        switch status {
        case .outside: self = .outside
        case .inside: self = .inside
        case .edge: self = .edge
        }
    }
}

@_cdecl("au_locate")
public func au_locate(_ tables: OpaquePointer?, _ count: Int, _ latitudes: UnsafePointer<Double>?, _ longitudes: UnsafePointer<Double>?,
                      _ flags: UInt32, _ country: UnsafeMutablePointer<Int32>?, _ province: UnsafeMutablePointer<Int32>?,
                      _ city: UnsafeMutablePointer<Int32>?, _ county: UnsafeMutablePointer<Int32>?, _ subdivision: UnsafeMutablePointer<Int32>?,
                      _ status: UnsafeMutablePointer<UInt8>?,
                      _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let locator = try TablesHandle.from(tables).locator
        guard count >= 0 else { throw ArgumentError("count \(count) is negative") }
        if count == 0 { return }
        guard let latitudes, let longitudes else { throw ArgumentError("latitudes or longitudes is NULL") }
        let flags = LocateFlags(rawValue: flags)
        guard flags.isSubset(of: [.gcj02, .strict]) else { throw ArgumentError("flags \(flags.rawValue): unknown bits") }
        let converter = DatumConverter()
        for k in 0..<count {
            var latitude = latitudes[k], longitude = longitudes[k]
            if flags.contains(.gcj02), latitude.isFinite, longitude.isFinite {
                let wgs = converter.wgs84(fromGCJ02: Coordinate(latitude: latitude, longitude: longitude))
                (latitude, longitude) = (wgs.latitude, wgs.longitude)
            }
            let placement: Placement
            do {
                placement = try locator.locate(latitude: latitude, longitude: longitude)
            } catch let problem as LocatorError {
                if flags.contains(.strict) { throw PointError(index: k, reason: problem.reason) }
                country?[k] = -1; province?[k] = -1; city?[k] = -1; county?[k] = -1; subdivision?[k] = -1
                status?[k] = ABIPlacementStatus.invalid.rawValue
                continue
            }
            country?[k] = placement.country.region ?? -1
            province?[k] = placement.province.region ?? -1
            city?[k] = placement.city.region ?? -1
            county?[k] = placement.county.region ?? -1
            subdivision?[k] = placement.subdivision.region ?? -1
            status?[k] = ABIPlacementStatus(finestStatus(placement)).rawValue
        }
    }
}

/// The status of the finest level placed (outside when none), as `unlocks locate` prints it.
@inline(__always)
func finestStatus(_ p: Placement) -> PlacementStatus {
    if p.county.region != nil { return p.county.status }
    if p.city.region != nil { return p.city.status }
    if p.province.region != nil { return p.province.status }
    if p.country.region != nil { return p.country.status }
    return .outside
}

/// A point that is not a coordinate, by its index in the call (`AU_ERROR_COORDINATE`).
struct PointError: Error, CustomStringConvertible {
    let index: Int
    let reason: String
    var description: String { "point \(index): \(reason)" }
}
