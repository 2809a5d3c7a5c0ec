import RegionTables
import TextFormats

// A report's figures kept for later (a logbook keeps one per local day), so that the changes
// since a moment can be measured long after that moment's report is gone.

extension ClassifyReport.Baseline {
    /// The figures ``ClassifyReport/Changes`` reads, as compact JSON: regions by level and code
    /// (flags: 1 confirmed, 2 counted) with their names, inputs, the metrics changes compare,
    /// tiles and badges.
    package func json() -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("inputs", .number(Double(inputs))), ("skipped", .number(Double(skipped)))]
        members.append(("regions", .object(regions.keys.sorted().map { level in
            (level.name, .array(regions[level]!.sorted { $0.key < $1.key }.map { code, r in
                .array([.string(code), .number(Double((r.confirmed ? 1 : 0) | (r.counted ? 2 : 0))), .string(r.name), .string(r.englishName)])
            }))
        })))
        members.append(("metrics", .array([metrics.globalAreaKm2, Double(metrics.exploredCellCount), metrics.totalDistanceKilometers, Double(metrics.recordedDays),
                                           Double(metrics.familiarCells.lit), Double(metrics.familiarCells.bright), Double(metrics.familiarCells.gold)].map { .number($0) })))
        members.append(("tiles", .array(tiles.keys.sorted().map { zoom in
            .array([.number(Double(zoom)), .number(Double(tiles[zoom]!.visited)), .number(Double(tiles[zoom]!.maxSquare))])
        })))
        members.append(("badges", .object(badges.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })))
        return .object(members)
    }

    /// The figures of nothing: everything counts as changed against them.
    public static var empty: ClassifyReport.Baseline { ClassifyReport.Baseline(json: .object([("inputs", .number(0)), ("skipped", .number(0)), ("regions", .object([])),
        ("metrics", .array(Array(repeating: .number(0), count: 7))), ("tiles", .array([])), ("badges", .object([]))]))! }

    /// The figures of ``json()``; nil when the value is not such figures.
    package init?(json value: JSONValue) {
        func int(_ v: JSONValue?) -> Int? { v?.numberValue.flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil } }
        guard let inputs = int(value["inputs"]), case let .object(levels)? = value["regions"],
              let numbers = value["metrics"]?.arrayValue?.compactMap(\.numberValue), numbers.count == 7,
              let tileRows = value["tiles"]?.arrayValue, case let .object(badgeMembers)? = value["badges"] else { return nil }
        self.inputs = inputs
        skipped = int(value["skipped"]) ?? 0
        for (name, list) in levels {
            guard let level = RegionLevel.allCases.first(where: { $0.name == name }), let entries = list.arrayValue else { return nil }
            for entry in entries {
                guard let fields = entry.arrayValue, fields.count == 4, let code = fields[0].stringValue, let flags = int(fields[1]),
                      let name = fields[2].stringValue, let english = fields[3].stringValue else { return nil }
                regions[level, default: [:]][code] = (flags & 1 != 0, flags & 2 != 0, name, english)
            }
        }
        var familiar = FamiliarityCounts()
        (familiar.lit, familiar.bright, familiar.gold) = (Int(numbers[4]), Int(numbers[5]), Int(numbers[6]))
        metrics = ClassifyReport.Metrics(totalDistanceKilometers: numbers[2], vehicleDistanceKilometers: 0, flightDistanceKilometers: 0, totalDurationHours: 0,
                                         recordedDays: Int(numbers[3]), currentStreakDays: 0, longestStreakDays: 0, countryCount: 0, continentCount: 0, subdivisionCount: 0,
                                         chinaProvinceCount: 0, cityUnlockCount: 0, countyUnlockCount: 0, chinaAreaKm2: 0,
                                         globalAreaKm2: numbers[0], exploredCellCount: Int(numbers[1]), familiarCells: familiar)
        for row in tileRows {
            guard let fields = row.arrayValue, fields.count == 3, let zoom = int(fields[0]), let visited = int(fields[1]), let square = int(fields[2]) else { return nil }
            tiles[zoom] = (visited, square)
        }
        for (id, percent) in badgeMembers {
            guard let value = int(percent) else { return nil }
            badges[id] = value
        }
    }
}
