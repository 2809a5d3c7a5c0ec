import TextFormats
import Unlocks

/// The areas and periods a logbook forgot, as kept in `meta` (`exclusions`): compact JSON,
/// `[{"area":[lat,lon,radius]},{"period":[from,until]}]` (milliseconds; null for an open end),
/// in the order they were forgotten. Signed with the rules (``signedRules(_:_:)``).
enum StoredExclusions {
    static let metaKey = "exclusions"

    static func text(_ exclusions: [PointExclusion]) -> String {
        JSONValue.array(exclusions.map { exclusion in
            switch exclusion {
            case let .area(latitude, longitude, radius):
                return .object([("area", .array([.number(latitude), .number(longitude), .number(radius)]))])
            case let .period(from, until):
                return .object([("period", .array([from == .min ? .null : .number(Double(from)), until == .max ? .null : .number(Double(until))]))])
            }
        }).compactRendered()
    }

    /// The exclusions of `text`; nil when it is not what ``text(_:)`` writes (a damaged store).
    static func parse(_ text: String) -> [PointExclusion]? {
        guard let items = (try? JSONParser.parse(Array(text.utf8)))?.arrayValue else { return nil }
        var result: [PointExclusion] = []
        for item in items {
            if let values = item["area"]?.arrayValue {
                let numbers = values.compactMap(\.numberValue)
                guard numbers.count == 3, values.count == 3 else { return nil }
                result.append(.area(latitude: numbers[0], longitude: numbers[1], radiusMetres: numbers[2]))
            } else if let values = item["period"]?.arrayValue, values.count == 2 {
                func moment(_ value: JSONValue, open: Int64) -> Int64?? {
                    if case .null = value { return .some(open) }
                    guard let n = value.numberValue, n == n.rounded(), abs(n) <= 0x1p53 else { return .none }
                    return .some(Int64(n))
                }
                guard case let from?? = moment(values[0], open: .min), case let until?? = moment(values[1], open: .max) else { return nil }
                result.append(.period(from: from, until: until))
            } else {
                return nil
            }
            guard result.last?.isValid == true else { return nil }
        }
        return result
    }

    /// What the store's signature covers as its rules: the rules, and the exclusions when there
    /// are any (a store without them signs as before).
    static func signedRules(_ rules: String, _ exclusions: [PointExclusion]) -> String {
        exclusions.isEmpty ? rules : rules + "\n" + text(exclusions)
    }
}
