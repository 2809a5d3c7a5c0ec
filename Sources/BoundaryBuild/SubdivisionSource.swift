import TextFormats

/// The subdivision level's source (docs/boundaries.md, "Subdivisions"): Natural Earth's 1:10 m
/// admin-1 states and provinces, geometry from the PyPI wheel `Orange3-Geo` 0.5 (one GeoJSON per
/// country, `orangecontrib/geo/geojson/admin1-<ADM0_A3>.json`: Natural Earth's public-domain
/// polygons simplified with mapshaper, one topology for the world), ISO 3166-2 codes from the PyPI
/// wheel `apache-superset` 6.1.0 (its country maps, Natural Earth admin-1 with the `ISO` code),
/// joined by containment: a unit takes the code of the Superset feature holding its label point.
/// Both wheels are pinned by sha256 and read in place.
public struct SubdivisionSource: Sendable {
    public static let orangeRelease = SourcePin.orangeGeo.release
    public static let supersetRelease = SourcePin.superset.release
    static let orangePrefix = "orangecontrib/geo/geojson/admin1-"
    static let supersetPrefix = "superset/static/assets/"

    public let orangeSHA256: String
    public let supersetSHA256: String
    /// One region per code (level `province`), sorted by code; `parentCode` is its country's code
    /// in the international table's codes (ISO 3166-1 alpha-3, else Natural Earth's `ADM0_A3`).
    /// `name` is Natural Earth's (the local form in Latin letters, e.g. Bayern, Tokyo) until
    /// ``applyOwnNames(_:)`` sets CLDR's in the country's language (東京都); `englishName` empty
    /// until ``applyEnglishNames(_:)`` fills it.
    public private(set) var units: [SourceRegion]
    /// Codes of units that have no ISO 3166-2 code in Superset (they carry Natural Earth's
    /// `adm1_code`), by country.
    public let uncoded: [String: [String]]
    /// Natural Earth units that share one ISO 3166-2 code and were merged into one region, by code.
    public let merged: [String: [String]]

    /// Reads both wheels. `countryCodes` maps Natural Earth's `ADM0_A3` and ISO alpha-2 codes to the
    /// country table's codes (``NaturalEarthSource/codeByADM0A3``, ``NaturalEarthSource/codeByAlpha2``).
    public init(orange: String, superset: String, codeByADM0A3: [String: String], codeByAlpha2: [String: String],
                allowUnpinned: Bool = false) throws {
        let orangeWheel = try SourceArchive.readFile(orange)
        orangeSHA256 = SHA256.hex(orangeWheel)
        try SourcePin.orangeGeo.check(orangeSHA256, at: orange, allowUnpinned: allowUnpinned)
        let supersetWheel = try SourceArchive.readFile(superset)
        supersetSHA256 = SHA256.hex(supersetWheel)
        try SourcePin.superset.check(supersetSHA256, at: superset, allowUnpinned: allowUnpinned)
        let coded = try Self.supersetFeatures(try SourceArchive.zipEntries(supersetWheel, name: superset, accept: {
            $0.hasPrefix(Self.supersetPrefix) && $0.hasSuffix(".geojson")
        }), wheel: superset)
        let files = try SourceArchive.zipEntries(orangeWheel, name: orange, accept: { $0.hasPrefix(Self.orangePrefix) && $0.hasSuffix(".json") })
        guard !files.isEmpty else { throw SourceError(path: orange, reason: "no \(Self.orangePrefix)*.json inside; is this the \(Self.orangeRelease) wheel?") }

        struct Piece { var code: String; var country: String; var name: String; var isoName: String?; var id: String; var path: String; var polygons: [PolygonRings] }
        var pieces: [Piece] = []
        var uncoded: [String: [String]] = [:]
        for path in files.keys.sorted() {
            let json: JSONValue
            do { json = try JSONParser.parse(files[path]!) } catch { throw SourceError(path: "\(orange):\(path)", reason: "\(error)") }
            guard let features = json["features"]?.arrayValue else { throw SourceError(path: "\(orange):\(path)", reason: "not a FeatureCollection") }
            for (k, feature) in features.enumerated() {
                let where_ = "\(orange):\(path)#\(k)"
                guard let p = feature["properties"], let id = p["_id"]?.stringValue, let adm0 = p["adm0_a3"]?.stringValue,
                      let lon = p["longitude"]?.numberValue, let lat = p["latitude"]?.numberValue else {
                    throw SourceError(path: where_, reason: "a feature without _id, adm0_a3 or label point")
                }
                // Antarctica is in no country of either view (and its ring runs a hair past 180°).
                guard adm0 != "ATA" else { continue }
                let polygons: [PolygonRings]
                do { polygons = try GeoJSON.polygons(Self.clampedAtTheAntimeridian(feature)) } catch { throw SourceError(path: where_, reason: "\(error)") }
                guard !polygons.isEmpty else { continue }
                // A code of the unit's own country (Hong Kong's and Macau's label points lie in
                // Superset's China features CN-91 and CN-92, Siachen's in IN-LA: they keep Natural
                // Earth's codes under their own countries), or the other country's ISO 3166-2 names it under.
                let alpha2 = p["iso_a2"]?.stringValue ?? ""
                let hit = coded.code(longitude: lon, latitude: lat) { $0.hasPrefix(alpha2 + "-") || Self.codesUnderAnotherCountry[id] == $0 }
                // The unit's country: the ISO code's (Crimea and Sevastopol are UKR), else Natural Earth's ADM0_A3.
                let country = hit.flatMap { codeByAlpha2[String($0.code.prefix(2))] } ?? codeByADM0A3[adm0] ?? adm0
                if hit == nil { uncoded[country, default: []].append(id) }
                // Seven units have no name (small islands): Superset's, else Natural Earth's code.
                let name = p["name"]?.stringValue ?? hit?.name ?? id
                pieces.append(Piece(code: hit?.code ?? id, country: country, name: name, isoName: hit?.name, id: id, path: path + "#\(k)", polygons: polygons))
            }
        }
        // One region per code: Natural Earth units that Superset holds under one ISO code are one.
        var byCode: [String: [Piece]] = [:]
        for piece in pieces { byCode[piece.code, default: []].append(piece) }
        var merged: [String: [String]] = [:]
        units = byCode.keys.sorted().map { code in
            let group = byCode[code]!
            if group.count > 1 { merged[code] = group.map(\.id) }
            let name = group.count == 1 ? group[0].name : (group[0].isoName ?? group.map(\.name).joined(separator: ", "))
            return SourceRegion(level: .province, code: code, parentCode: group[0].country, name: name, englishName: "",
                                path: group[0].path, polygons: group.flatMap(\.polygons))
        }
        self.uncoded = uncoded.mapValues { $0.sorted() }
        self.merged = merged
    }

    /// Sets each unit's English name from `english` (CLDR's, by code), else Natural Earth's name.
    public mutating func applyEnglishNames(_ english: [String: String]) {
        for k in units.indices { units[k].englishName = english[units[k].code] ?? units[k].name }
    }

    /// Sets each unit's own name from `own` (CLDR's, by code, in its country's language:
    /// ``CountryLanguages``), else keeps Natural Earth's.
    public mutating func applyOwnNames(_ own: [String: String]) {
        for k in units.indices { units[k].name = own[units[k].code] ?? units[k].name }
    }

    /// Natural Earth units (`adm1_code`) whose ISO 3166-2 code is another country's than the one
    /// Natural Earth files them under: Crimea and Sevastopol, under Russia in Natural Earth's
    /// admin-1, are Ukraine's UA-43 and UA-40 in ISO 3166-2 and in Superset (docs/boundaries.md,
    /// "Subdivisions").
    static let codesUnderAnotherCountry = ["RUS-283": "UA-43", "RUS-5482": "UA-40"]

    /// Superset's features with a well-formed ISO 3166-2 code, for the containment join.
    struct CodedFeatures {
        struct Feature { var code: String; var name: String; var fileFeatures: Int; var box: (Double, Double, Double, Double); var polygons: [PolygonRings] }
        var features: [Feature] = []

        /// The code of an `accept`ed feature holding the point: from the file with the most
        /// features when several do (departments before regions, provinces before regions),
        /// then the smallest code.
        func code(longitude x: Double, latitude y: Double, accept: (String) -> Bool) -> (code: String, name: String)? {
            let hits = features.filter { f in
                accept(f.code) && f.box.0 <= x && x <= f.box.2 && f.box.1 <= y && y <= f.box.3
                    && f.polygons.contains { SubdivisionSource.contains($0, x: x, y: y) }
            }
            let best = hits.min { a, b in (-a.fileFeatures, a.code) < (-b.fileFeatures, b.code) }
            return best.map { ($0.code, $0.name) }
        }
    }

    /// The feature with coordinates a rounding error past ±180° (Fiji's and Russia's rings in the
    /// source end at 180.0000000000002) put on ±180°.
    static func clampedAtTheAntimeridian(_ feature: JSONValue) -> JSONValue {
        guard case .object(var members) = feature, let g = members.firstIndex(where: { $0.key == "geometry" }),
              case .object(var geometry) = members[g].value, let c = geometry.firstIndex(where: { $0.key == "coordinates" }),
              case .coordinates(var array) = geometry[c].value else { return feature }
        for k in stride(from: 0, to: array.values.count, by: 2) where abs(array.values[k]) > 180 && abs(array.values[k]) < 180 + 1e-9 {
            array.values[k] = array.values[k] > 0 ? 180 : -180
        }
        geometry[c].value = .coordinates(array)
        members[g].value = .object(geometry)
        return .object(members)
    }

    /// ISO 3166-2's form: two letters, a hyphen, one to three letters or digits.
    static func isISOCode(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 2 && parts[0].allSatisfy { $0.isASCII && $0.isUppercase }
            && (1...3).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }

    static func supersetFeatures(_ files: [String: [UInt8]], wheel: String) throws -> CodedFeatures {
        var result = CodedFeatures()
        for path in files.keys.sorted() {
            let json: JSONValue
            do { json = try JSONParser.parse(files[path]!) } catch { throw SourceError(path: "\(wheel):\(path)", reason: "\(error)") }
            guard let features = json["features"]?.arrayValue else { continue }
            for feature in features {
                guard let code = feature["properties"]?["ISO"]?.stringValue, isISOCode(code),
                      let polygons = try? GeoJSON.polygons(feature), !polygons.isEmpty else { continue }
                let points = polygons.flatMap { $0.rings.first ?? [] }
                let box = (points.map(\.x).min()!, points.map(\.y).min()!, points.map(\.x).max()!, points.map(\.y).max()!)
                result.features.append(.init(code: code, name: feature["properties"]?["NAME_1"]?.stringValue ?? code, fileFeatures: features.count,
                                             box: box, polygons: polygons))
            }
        }
        return result
    }

    /// Even–odd point in polygon (outer ring and holes).
    static func contains(_ polygon: PolygonRings, x: Double, y: Double) -> Bool {
        var inside = false
        for ring in polygon.rings {
            for (a, b) in zip(ring, ring.dropFirst()) where (a.y > y) != (b.y > y) {
                if x < a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y) { inside.toggle() }
            }
        }
        return inside
    }
}
