import Foundation
import RegionTables
import XCTest
@testable import BoundaryBuild
import UnlocksTestSupport

/// The English names of the Chinese regions (Data/names/china-english.tsv, read into china.bin).
final class EnglishNamesTests: XCTestCase {
    static let root = Repository.root

    /// Well-known spellings, checked by hand: provinces as ISO 3166-2:CN writes them (CN-SN
    /// "Shaanxi Sheng" beside CN-SX "Shanxi Sheng": the one name pinyin cannot tell apart), cities
    /// and districts as their governments' English sites spell them, polyphonic characters
    /// included (重 chong, 长 chang, 厦 xia, 蚌 beng, 六 lu, 朝 chao, 番 pan), with the apostrophe
    /// of Hanyu Pinyin before a syllable starting with a, o or e (Xi'an, Lu'an).
    static let wellKnown: [(level: RegionLevel, code: String, english: String)] = [
        (.province, "610000", "Shaanxi Province"), (.province, "140000", "Shanxi Province"),
        (.province, "500000", "Chongqing Municipality"), (.province, "810000", "Hong Kong SAR"),
        (.province, "450000", "Guangxi Zhuang Autonomous Region"),
        (.city, "430100", "Changsha City"), (.city, "350200", "Xiamen City"), (.city, "610100", "Xi'an City"),
        (.city, "340300", "Bengbu City"), (.city, "341500", "Lu'an City"),
        (.county, "110105", "Chaoyang District"), (.county, "440113", "Panyu District"),
        (.county, "310115", "Pudong New Area"), (.city, "532900", "Dali Bai Autonomous Prefecture"),
    ]

    func testTheCommittedTableNamesEveryRegionAndTheWellKnownOnesAsPublished() throws {
        let table = try RegionTable(contentsOf: Self.root + "/Data/regions/china.bin")
        var byKey: [String: Region] = [:]
        for region in table.regions { byKey["\(region.level.name)/\(region.code)"] = region }
        for region in table.regions {
            XCTAssertFalse(region.englishName.isEmpty, "\(region.code) \(region.name) has no English name")
            // Pinyin's ü, and the exonyms Ürümqi and Garzê.
            XCTAssertTrue(region.englishName.allSatisfy { $0.isASCII || "üÜê".contains($0) }, region.englishName)
        }
        for (level, code, english) in Self.wellKnown {
            XCTAssertEqual(byKey["\(level.name)/\(code)"]?.englishName, english, code)
        }
        // The table carries exactly the committed file's names (the build read it).
        let text = try String(contentsOfFile: Self.root + "/" + EnglishNames.defaultPath, encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst(2).map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(rows.count, table.regionCount)
        for row in rows {
            let region = try XCTUnwrap(byKey[row[0] + "/" + row[1]], row.joined(separator: " "))
            XCTAssertEqual([region.name, region.englishName], [row[2], row[3]])
        }
    }

    /// Issue 23: the table against the independent list of
    /// Scripts/fixtures/make-english-name-expectations (Hong Kong's and Macao's official names,
    /// every autonomous unit's peoples in English, the exonyms and same-named cities it cites).
    func testTheNamesMatchTheIndependentList() throws {
        let table = try RegionTable(contentsOf: Self.root + "/Data/regions/china.bin")
        var byKey: [String: Region] = [:]
        for region in table.regions { byKey["\(region.level.name)/\(region.code)"] = region }
        let text = try String(contentsOfFile: Self.root + "/Tests/BoundaryBuildTests/Fixtures/english-names-expected.tsv", encoding: .utf8)
        let rows = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.filter { $0[0] == "exact" }.count, 113)
        XCTAssertEqual(rows.filter { $0[0] == "ending" }.count, 156)
        var autonomous = 0
        for row in rows {
            let region = try XCTUnwrap(byKey[row[1] + "/" + row[2]], row.joined(separator: " "))
            XCTAssertEqual(region.name, row[3])
            if row[0] == "exact" {
                XCTAssertEqual(region.englishName, row[4], row.joined(separator: " "))
            } else {
                autonomous += 1
                XCTAssertTrue(region.englishName == row[4] || region.englishName.hasSuffix(" " + row[4]), "\(region.englishName) for \(row[4])")
            }
        }
        // Every autonomous unit below the provinces is in the list, and no name keeps a pinyin
        // "zu" (族) for a people (大足区 Dazu District is a place's own name).
        let units = table.regions.filter { $0.level != .province && $0.name.contains("自治") && !$0.name.hasSuffix("直辖") }
        XCTAssertEqual(units.count, autonomous)
        for region in table.regions {
            XCTAssertFalse(region.englishName.split(separator: " ").contains { $0.hasSuffix("zu") && $0 != "Dazu" }, region.englishName)
        }
    }

    /// Issue 33: Inner Mongolia's banners translate the words around their proper names, each the
    /// same way (左 Left, 右 Right, 前 Front, 中 Middle, 后 Rear, 东 East, 西 West, 新 New), and
    /// none keeps them in run-together pinyin ("Ke'erqinzuoyizhong").
    func testInnerMongoliasBannersTranslateTheirDirectionalWords() throws {
        let table = try RegionTable(contentsOf: Self.root + "/Data/regions/china.bin")
        var banners = 0
        for region in table.regions where region.code.hasPrefix("15") && region.name.hasSuffix("旗") && !region.name.hasSuffix("自治旗") {
            banners += 1
            let english = region.englishName.split(separator: " ").map(String.init)
            XCTAssertEqual(english.last, "Banner", region.englishName)
            // The directional characters that end the name (before 旗), each translated.
            var stem = Substring(region.name.dropLast())
            if let position = [("前", "Front"), ("中", "Middle"), ("后", "Rear")].first(where: { stem.hasSuffix($0.0) }), stem.count > 2 {
                XCTAssertTrue(english.contains(position.1), "\(region.name): \(region.englishName) lacks \(position.1)")
                stem = stem.dropLast()
            }
            if stem.hasSuffix("翼") { stem = stem.dropLast() }
            if let side = [("左", "Left"), ("右", "Right")].first(where: { stem.hasSuffix($0.0) }) {
                XCTAssertTrue(english.contains(side.1), "\(region.name): \(region.englishName) lacks \(side.1)")
            }
            for prefix in [("东", "East"), ("西", "West"), ("新", "New")] where stem.hasPrefix(prefix.0) {
                XCTAssertEqual(english.first, prefix.1, "\(region.name): \(region.englishName)")
            }
            for part in ["zuo", "you", "qian", "zhong", "hou"] {
                XCTAssertFalse(english.dropLast().contains { $0.count > part.count && $0.lowercased().hasSuffix(part) }, "\(region.name): \(region.englishName)")
            }
        }
        XCTAssertEqual(banners, 49)  // Inner Mongolia's 52 banners but the 3 autonomous ones
    }

    func testABrokenNamesFileIsRefusedWithItsLine() throws {
        let path = try temporaryDirectory() + "/names.tsv"
        for (text, expected) in [
            ("# c\nlevel\tcode\tname\tenglish\ncity\t110100\t北京市\n", "\(path):3: expected 4 non-empty"),
            ("level\tcode\tname\tenglish\ntown\t1\t甲\tJia\n", "\(path):2: level 'town'"),
            ("level\tcode\tname\tenglish\ncity\t1\t甲\tJia\ncity\t1\t甲\tJia\n", "\(path):3: city 1 is named twice"),
            ("level\tcode\n", "\(path):1: expected the header"),
        ] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try EnglishNames(contentsOf: path)) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(error)")
            }
        }
        XCTAssertThrowsError(try EnglishNames(contentsOf: path + ".missing")) { error in
            XCTAssertTrue("\(error)".contains("Scripts/fixtures/make-english-names"), "\(error)")
        }
    }
}
