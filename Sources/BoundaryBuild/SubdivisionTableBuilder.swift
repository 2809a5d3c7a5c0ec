import RegionTables
import TextFormats

/// Builds `subdivisions.bin` (WGS-84; levels country and province): Natural Earth's admin-1 units
/// (``SubdivisionSource``) through the world table's pipeline (``WorldTableBuilder``: noding on the
/// 8e-5° grid, every face to one unit, slivers to a neighbour, 100 m land and 2 km coast budgets,
/// geometry repair, small islands, the grid scan against the source). Natural Earth's admin-1
/// shares its border vertices (one mapshaper topology), so, like the international table, no
/// pre-simplification. Each unit also names its country (level country, the international table's
/// codes), and China's view adds Taiwan, Hong Kong and Macau (CN-TW, CN-HK, CN-MO) as regions
/// without units: there they are the China table's provinces (docs/boundaries.md, "Subdivisions").
public struct SubdivisionTableBuilder {
    /// ISO 3166-2 codes of the China table's provinces (adcode → code), ISO 3166-2:CN as Debian's
    /// iso-codes lists it: how China's view answers its subdivisions (`SubdivisionCodesTests`).
    public static let chinaProvinceCodes = RegionLocator.chinaProvinceISOCodes

    public let tolerance: Double
    public let coastTolerance: Double
    public let buffer: Double

    public init(tolerance: Double, coastTolerance: Double, buffer: Double) {
        self.tolerance = tolerance
        self.coastTolerance = coastTolerance
        self.buffer = buffer
    }

    /// The table's bytes and figures. `countries`: the international table's countries (their codes
    /// and names head the country level); `chinaProvinces`: the China table's provinces (names of
    /// the regions China's view adds).
    public func build(_ source: SubdivisionSource, countries: [SourceRegion], chinaProvinces: [SourceRegion], sourceSHA256: String,
                      log: (String) -> Void = { _ in }) throws -> (bytes: [UInt8], report: TableReport) {
        var byCode: [String: SourceRegion] = [:]
        for country in countries { byCode[country.code] = country }
        // Countries the admin-1 source names that the country table lacks (none expected) are added by code.
        for unit in source.units where byCode[unit.parentCode] == nil {
            byCode[unit.parentCode] = SourceRegion(level: .country, code: unit.parentCode, parentCode: "", name: unit.parentCode,
                                                   englishName: unit.parentCode, path: "", polygons: [])
        }
        let parentCodes = byCode.keys.sorted()
        let index = Dictionary(uniqueKeysWithValues: parentCodes.enumerated().map { ($1, $0) })
        var parents = WorldTableBuilder.ParentLevel(countries: parentCodes.map { byCode[$0]! }, countryOfRegion: source.units.map { index[$0.parentCode]! })
        let unitCodes = Set(source.units.map(\.code))
        guard let china = index["CHN"] else { throw SourceError(path: "subdivisions", reason: "no country CHN") }
        for province in chinaProvinces.sorted(by: { $0.code < $1.code }) {
            guard let code = Self.chinaProvinceCodes[province.code] else {
                throw SourceError(path: province.path, reason: "China table province \(province.code) \(province.name) has no ISO 3166-2 code")
            }
            guard !unitCodes.contains(code) else { continue }
            parents.regionsWithoutUnits.append((SourceRegion(level: .province, code: code, parentCode: "CHN", name: province.name,
                                                             englishName: province.englishName, path: province.path, polygons: []), china))
        }
        let builder = WorldTableBuilder(tolerance: tolerance, coastTolerance: coastTolerance, buffer: buffer, preTolerance: 0, cutsSliversWithinReach: true)
        let built = try builder.build(countries: source.units, seamCountry: nil, name: "subdivisions", sourceSHA256: sourceSHA256, parents: parents, log: log)
        var report = built.report
        report.notes.append("units without an ISO 3166-2 code in \(SubdivisionSource.supersetRelease) (Natural Earth's adm1_code kept): "
                            + "\(source.uncoded.values.reduce(0) { $0 + $1.count }) in \(source.uncoded.count) countries")
        report.notes.append("Natural Earth units merged under one ISO 3166-2 code: \(source.merged.count) codes, \(source.merged.values.reduce(0) { $0 + $1.count }) units")
        return (built.bytes, report)
    }
}
