import RegionTables

extension RegionLevel {
    /// The levels in the order a report lists them, each with its plural, the key of its list in
    /// the report's JSON: countries, their subdivisions (states, provinces, prefectures), then
    /// China's provinces, cities and counties.
    public static let reported: [(plural: String, level: RegionLevel)] = [
        ("countries", .country), ("subdivisions", .subdivision), ("provinces", .province), ("cities", .city), ("counties", .county),
    ]

    /// The level's plural noun ("countries", "subdivisions", …).
    public var plural: String { Self.reported.first { $0.level == self }!.plural }

    /// The level's noun for one region: its ``RegionLevel/name`` ("country", "subdivision", …).
    public var singular: String { name }
}

extension RegionLevel {
    /// How fine the level is, in the order of ``reported``: a country 0, its subdivision 1, then
    /// China's province, city and county (a pin or a title takes the finest region it has).
    public var fineness: Int { Self.reported.firstIndex { $0.level == self }! }
}
