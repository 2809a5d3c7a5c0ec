import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import RegionTables
import UnlocksTestSupport

/// The CLDR data beside the tables (`cldr-names.tsv.gz`, `continents.tsv`, written by
/// `Scripts/fixtures/make-cldr-data`) against the CLDR files themselves (Debian
/// unicode-cldr-core), read here with FoundationXML, independently of the script.
final class CLDRDataTests: XCTestCase {
    static let cldr = "/usr/share/unicode/cldr/common"
    static let names: RegionNames = {
        do { return try RegionNames(contentsOf: Repository.tables + "/" + RegionNames.fileName) } catch { fatalError("\(error)") }
    }()

    /// `element type="X"` texts of a CLDR file (alt forms left out), by type.
    static func entries(_ path: String, element: String) throws -> [String: String] {
        final class Collector: NSObject, XMLParserDelegate {
            let element: String
            var found: [String: String] = [:]
            var current: String?
            var text = ""
            init(element: String) { self.element = element }
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                if name == element, attributes["alt"] == nil, let type = attributes["type"] { current = type; text = "" }
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) { if current != nil { text += string } }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                if name == element, let type = current { found[type] = text; current = nil }
            }
        }
        let parser = try XCTUnwrap(XMLParser(contentsOf: URL(fileURLWithPath: path)))
        parser.shouldResolveExternalEntities = false
        let collector = Collector(element: element)
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "\(path): \(parser.parserError.map { "\($0)" } ?? "")")
        return collector.found
    }

    func testTheIssuesPlacesInTheirLanguages() {
        XCTAssertEqual(Self.names.localized("ja").name(of: "JP-13"), "東京都")
        XCTAssertEqual(Self.names.localized("en").name(of: "JP-13"), "Tokyo")
        XCTAssertEqual(Self.names.localized("de").name(of: "DE-BY"), "Bayern")
        XCTAssertEqual(Self.names.localized("fr").name(of: "DE-BY"), "Bavière")
        XCTAssertEqual(Self.names.localized("fr-FR").name(of: "DE-BY"), "Bavière", "a region tag falls back to its language")
        XCTAssertEqual(Self.names.localized("xx").name(of: "DE-BY"), "Bavaria", "an unknown language falls back to English")
        XCTAssertEqual(Self.names.localized("ja").name(of: "JPN"), "日本")
    }

    /// A sample of the subdivision table's ISO-coded units in several languages, and every
    /// country of both views, against the CLDR XML: the language's own name, else English's.
    func testNamesAreCLDRsForASampleInSeveralLanguages() throws {
        let subdivisions = try XCTUnwrap(BundledTables.tables.subdivisions)
        let codes = subdivisions.regions.filter { $0.level == .province && $0.code.count <= 6 && $0.code.dropFirst(2).first == "-" }.map(\.code)
        XCTAssertGreaterThan(codes.count, 3_000)
        let sample = stride(from: 0, to: codes.count, by: 37).map { codes[$0] } + ["JP-13", "DE-BY", "CN-BJ", "US-CA", "FR-75"]
        let english = try Self.entries(Self.cldr + "/subdivisions/en.xml", element: "subdivision")
        func key(_ iso: String) -> String { iso.replacingOccurrences(of: "-", with: "").lowercased() }
        var compared = 0
        for language in ["ja", "de", "fr", "zh", "ru", "ar", "es", "ko"] {
            let own = try Self.entries(Self.cldr + "/subdivisions/\(language).xml", element: "subdivision")
            let localized = Self.names.localized(language)
            for code in sample {
                XCTAssertEqual(localized.name(of: code), own[key(code)] ?? english[key(code)], "\(language) \(code)")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 500)
        // Countries: common/main/LANGUAGE.xml by alpha-2, through supplementalData's alpha-3 codes.
        let supplemental = try String(contentsOfFile: Self.cldr + "/supplemental/supplementalData.xml", encoding: .utf8)
        var alpha2: [String: String] = [:]
        for line in supplemental.split(separator: "\n") where line.contains("<territoryCodes ") && line.contains("alpha3=") {
            func attribute(_ name: String) -> String? {
                guard let r = line.range(of: name + "=\"") else { return nil }
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            }
            if let type = attribute("type"), let a3 = attribute("alpha3") { alpha2[a3] = type }
        }
        let englishCountries = try Self.entries(Self.cldr + "/main/en.xml", element: "territory")
        for language in ["ja", "de", "fr"] {
            let own = try Self.entries(Self.cldr + "/main/\(language).xml", element: "territory")
            for region in BundledTables.tables.world.regions {
                guard let a2 = alpha2[region.code], let expected = own[a2] ?? englishCountries[a2] else { continue }
                XCTAssertEqual(Self.names.localized(language).name(of: region.code), expected, "\(language) \(region.code)")
            }
        }
    }

    /// The subdivision table's units are named in their country's language: of the languages
    /// official there (CLDR's territoryInfo), the one most people speak that CLDR names
    /// subdivisions in, read here from the XML; the unit's name is that language's, else
    /// English's (CLDR's inheritance), and its English name English's. Units CLDR does not name
    /// keep Natural Earth's.
    func testSubdivisionsAreNamedInTheirCountrysLanguage() throws {
        let subdivisions = try XCTUnwrap(BundledTables.tables.subdivisions)
        let supplemental = try String(contentsOfFile: Self.cldr + "/supplemental/supplementalData.xml", encoding: .utf8)
        func attribute(_ line: Substring, _ name: String) -> String? {
            guard let r = line.range(of: " " + name + "=\"") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
        var alpha2: [String: String] = [:], language: [String: String] = [:]
        var territory: String?, best: (percent: Double, language: String)?
        let locales = Set(try FileManager.default.contentsOfDirectory(atPath: Self.cldr + "/subdivisions").map { String($0.dropLast(4)) })
        for line in supplemental.split(separator: "\n") {
            if line.contains("<territoryCodes "), let type = attribute(line, "type"), let a3 = attribute(line, "alpha3") { alpha2[a3] = type }
            if line.contains("<territory type=") {
                territory = attribute(line, "type")
                best = nil
            } else if line.contains("<languagePopulation "), let t = territory, let lang = attribute(line, "type"),
                      ["official", "de_facto_official"].contains(attribute(line, "officialStatus") ?? ""), locales.contains(lang) {
                let percent = Double(attribute(line, "populationPercent") ?? "0") ?? 0
                if best == nil || percent > best!.percent || (percent == best!.percent && lang < best!.language) { best = (percent, lang) }
                language[t] = best!.language
            } else if line.contains("</territory>") {
                territory = nil
            }
        }
        XCTAssertEqual(language["JP"], "ja")
        XCTAssertEqual(language["DE"], "de")
        let english = try Self.entries(Self.cldr + "/subdivisions/en.xml", element: "subdivision")
        var own: [String: [String: String]] = [:]
        func key(_ iso: String) -> String { iso.replacingOccurrences(of: "-", with: "").lowercased() }
        let units = subdivisions.regions.filter { $0.level == .province && english[key($0.code)] != nil }
        XCTAssertGreaterThan(units.count, 3_000)
        var compared = 0
        for (k, unit) in units.enumerated() where k % 13 == 0 || ["JP-13", "DE-BY", "CN-BJ", "FR-75", "RU-MOW", "IN-MH"].contains(unit.code) {
            let country = subdivisions.region(try XCTUnwrap(unit.parent)).code
            XCTAssertEqual(unit.englishName, english[key(unit.code)], unit.code)
            guard let a2 = alpha2[country], let lang = language[a2] else { continue }
            if own[lang] == nil { own[lang] = try Self.entries(Self.cldr + "/subdivisions/\(lang).xml", element: "subdivision") }
            XCTAssertEqual(unit.name, own[lang]![key(unit.code)] ?? english[key(unit.code)], "\(unit.code) in \(lang)")
            compared += 1
        }
        XCTAssertGreaterThan(compared, 200)
        XCTAssertEqual(subdivisions.regions.first { $0.code == "JP-13" }?.name, "東京都")
    }

    /// Every country of the file against CLDR's territory containment: its sub-region is the
    /// M.49 group listing it, its continent the group listing that one (the Americas as North and
    /// South America: CLDR's groupings 003 and 005).
    func testContinentsAreCLDRsTerritoryContainment() throws {
        let continents = try Continents(contentsOf: Repository.tables + "/" + Continents.fileName)
        let supplemental = try String(contentsOfFile: Self.cldr + "/supplemental/supplementalData.xml", encoding: .utf8)
        var contains: [String: [String]] = [:], grouping = Set<String>()
        for line in supplemental.split(separator: "\n") where line.contains("<group type=") {
            func attribute(_ name: String) -> String? {
                guard let r = line.range(of: " " + name + "=\"") else { return nil }
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            }
            guard let type = attribute("type"), let members = attribute("contains") else { continue }
            if attribute("status") != nil { grouping.insert(type); if type != "003" { continue } }
            contains[type, default: []] += members.split(separator: " ").map(String.init)
        }
        let checks: [(String, String, String)] = [("JPN", "142", "030"), ("DEU", "150", "155"), ("USA", "003", "021"), ("MEX", "003", "013"),
                                                  ("BRA", "005", "005"), ("AUS", "009", "053"), ("EGY", "002", "015"), ("CHN", "142", "030"),
                                                  ("IND-PAK-JK", "142", "034")]
        for (country, continent, subregion) in checks {
            let found = try XCTUnwrap(continents.regions(ofCountry: country), country)
            XCTAssertEqual(found.continent.code, continent, country)
            XCTAssertEqual(found.subregion.code, subregion, country)
        }
        XCTAssertEqual(continents.continentCodes, ["002", "003", "005", "009", "142", "150", "AQ"])
        // Every country of both views has a continent, and CLDR's containment agrees with it.
        let international = try RegionTable(contentsOf: Repository.tables + "/international.bin")
        var missing: [String] = []
        for region in BundledTables.tables.world.regions + international.regions {
            guard let found = continents.regions(ofCountry: region.code) else { missing.append(region.code); continue }
            guard found.continent.code != "AQ" else { continue }
            let top = ["003", "005"].contains(found.continent.code) ? "019" : found.continent.code
            XCTAssertTrue(contains[top]?.contains(found.subregion.code) ?? false, "\(region.code): \(found.subregion.code) not in \(top)")
        }
        XCTAssertEqual(missing, [], "countries without a continent")
    }
}
