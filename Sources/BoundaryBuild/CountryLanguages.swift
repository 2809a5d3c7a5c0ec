import RegionTables

/// Each country's language for its subdivisions' own names (`Data/names/languages.tsv`, written
/// by `Scripts/fixtures/make-cldr-data` from Unicode CLDR's territory information): the official
/// language most people there speak that CLDR names subdivisions in. A build input only.
public struct CountryLanguages: Sendable {
    /// CLDR locale by country code (the tables' alpha-3).
    private let byCountry: [String: String]
    /// The file's SHA-256 (hex), for the manifest.
    public let sha256: String

    /// Reads the file: `#` comment lines, then `COUNTRY<TAB>LOCALE` lines.
    public init(contentsOf path: String) throws {
        let bytes = try SourceArchive.readFile(path)
        sha256 = SHA256.hex(bytes)
        var byCountry: [String: String] = [:]
        for (k, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, !fields[0].isEmpty, !fields[1].isEmpty, byCountry[String(fields[0])] == nil else {
                throw SourceError(path: path, reason: "line \(k + 1): expected COUNTRY<TAB>LOCALE, each country once")
            }
            byCountry[String(fields[0])] = String(fields[1])
        }
        self.byCountry = byCountry
    }

    /// The country's language, nil when CLDR names its subdivisions in none of its official ones.
    public func language(of country: String) -> String? { byCountry[country] }
}
