/// UN M.49 continents and sub-regions of the tables' countries, from Unicode CLDR's territory
/// containment (`continents.tsv` beside the tables, written by `Scripts/fixtures/make-cldr-data`
/// from Debian's unicode-cldr-core). Continents: Africa 002, Asia 142, Europe 150, Oceania 009,
/// North America 003, South America 005 (the Americas split as CLDR groups them), Antarctica AQ.
public struct Continents: Sendable {
    public static let fileName = "continents.tsv"

    /// An M.49 region: its code (`150`) and English name (`Europe`).
    public struct Region: Equatable, Hashable, Sendable {
        public let code: String
        public let name: String
    }

    private let byCountry: [String: (continent: Region, subregion: Region)]

    /// Reads the file: `#region<TAB>CODE<TAB>NAME` rows, then `COUNTRY<TAB>ALPHA2<TAB>CONTINENT<TAB>SUBREGION`.
    public init(contentsOf path: String) throws {
        guard let file = fopen(path, "rb") else { throw TableError(path: path, reason: "cannot open") }
        defer { fclose(file) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += chunk[0..<n]
            if n < chunk.count { break }
        }
        var names: [String: String] = [:], rows: [(Int, [String])] = []
        for (k, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n").enumerated() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if fields.first == "#region", fields.count == 3 { names[fields[1]] = fields[2] }
            else if !line.hasPrefix("#") { rows.append((k + 1, fields)) }
        }
        var byCountry: [String: (Region, Region)] = [:]
        for (number, fields) in rows {
            guard fields.count == 4, let continent = names[fields[2]], let subregion = names[fields[3]] else {
                throw TableError(path: path, reason: "line \(number): expected COUNTRY<TAB>ALPHA2<TAB>CONTINENT<TAB>SUBREGION with named regions")
            }
            byCountry[fields[0]] = (Region(code: fields[2], name: continent), Region(code: fields[3], name: subregion))
        }
        self.byCountry = byCountry
    }

    /// The continent and sub-region of a country by the tables' code (`JPN`; a disputed area coded
    /// by its claimants, `IND-PAK-JK`, takes the first claimant's); nil for an unknown code.
    public func regions(ofCountry code: String) -> (continent: Region, subregion: Region)? {
        if let found = byCountry[code] { return found }
        guard let first = code.split(separator: "-").first, first.count == 3 else { return nil }
        return byCountry[String(first)]
    }

    /// Every continent code the file knows, sorted.
    public var continentCodes: [String] { Set(byCountry.values.map(\.continent.code)).sorted() }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
