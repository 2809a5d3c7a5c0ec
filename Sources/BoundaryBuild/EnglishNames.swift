import Foundation
import RegionTables

/// The English names of the Chinese regions: `Data/names/china-english.tsv`, written by
/// `Scripts/fixtures/make-english-names` from ISO 3166-2:CN and Hanyu Pinyin (the rule:
/// docs/region-table-format.md, "English names"). The build reads it so a rebuild needs no Python,
/// and refuses a table that does not name every region of the source exactly as the source does.
public struct EnglishNames {
    /// The committed table, relative to the repository root.
    public static let defaultPath = "Data/names/china-english.tsv"

    public let path: String
    /// SHA-256 of the file, hex (recorded in the manifest).
    public let sha256: String
    /// "level/code" → (Chinese name, English name).
    private var names: [String: (name: String, english: String)] = [:]

    /// Reads and checks the file: a `#` comment line, the header `level code name english`, then
    /// one row per region, tab-separated, every field non-empty, no region twice.
    public init(contentsOf path: String) throws {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SourceError(path: path, reason: "cannot read the English names (Scripts/fixtures/make-english-names writes them)")
        }
        sha256 = SHA256.hex(Array(data))
        guard let text = String(data: data, encoding: .utf8) else { throw SourceError(path: path, reason: "not UTF-8") }
        var sawHeader = false
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let location = "\(path):\(i + 1)"
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if !sawHeader {
                guard fields == ["level", "code", "name", "english"] else {
                    throw SourceError(path: location, reason: "expected the header 'level<TAB>code<TAB>name<TAB>english'")
                }
                sawHeader = true
                continue
            }
            guard fields.count == 4, fields.allSatisfy({ !$0.isEmpty }) else {
                throw SourceError(path: location, reason: "expected 4 non-empty tab-separated fields, found \(fields.count)")
            }
            guard ["province", "city", "county"].contains(fields[0]) else {
                throw SourceError(path: location, reason: "level '\(fields[0])' is not province, city or county")
            }
            let key = fields[0] + "/" + fields[1]
            guard names[key] == nil else { throw SourceError(path: location, reason: "\(fields[0]) \(fields[1]) is named twice") }
            names[key] = (fields[2], fields[3])
        }
        guard sawHeader else { throw SourceError(path: path, reason: "no header line") }
    }

    /// Sets the English name of every Chinese region of `catalog`. A region the file lacks, or
    /// names differently in Chinese (the source changed: run Scripts/fixtures/make-english-names), is an error.
    public func apply(to catalog: inout SourceCatalog) throws {
        for i in catalog.china.indices {
            let region = catalog.china[i]
            guard let row = names["\(region.level.name)/\(region.code)"] else {
                throw SourceError(path: path, reason: "no English name for \(region.level.name) \(region.code) \(region.name); run Scripts/fixtures/make-english-names")
            }
            guard row.name == region.name else {
                throw SourceError(path: path, reason: "\(region.level.name) \(region.code) is \(row.name) here but \(region.name) in the source; run Scripts/fixtures/make-english-names")
            }
            catalog.china[i].englishName = row.english
        }
    }
}
