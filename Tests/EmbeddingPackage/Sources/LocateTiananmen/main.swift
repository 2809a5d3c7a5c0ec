import AdminUnlocks
import Foundation

// Tiananmen, WGS-84 (as a phone's GPS gives it): Beijing, Dongcheng District.
let locator = try RegionLocator.bundled()
let placement = try locator.locate(latitude: 39.9087, longitude: 116.3975)
func name(_ level: LevelPlacement, _ table: RegionTable) -> String {
    level.region.map { "\(table.region($0).code) \(table.region($0).name)" } ?? "-"
}
print("country: " + name(placement.country, locator.world))
print("province: " + name(placement.province, locator.china))
print("county: " + name(placement.county, locator.china))
print("tables: " + (try BundledTables.directory()))

// A track the app holds in memory (here the sample walk through Beijing, named on the command
// line), classified as docs/embedding.md shows: one classifier, one input, the report.
if CommandLine.arguments.count > 1 {
    let path = CommandLine.arguments[1]
    guard let data = FileManager.default.contents(atPath: path) else { fatalError("cannot read \(path)") }
    let options = ClassifyOptions()
    var classifier = TrackClassifier(locator: locator, options: options)
    classifier.begin(InputRecord(path: path, fingerprint: path, format: "gpx"))
    try GPXReader.read(MemorySource(Array(data)), path: path, into: &classifier)
    let record = classifier.finish()
    let report = try ClassifyReport(ledger: classifier.takeLedger(), tables: locator.tables, options: options, lenient: false)
    let provinces = (report.unlocks[.province] ?? []).filter(\.confirmed).map(\.name)
    print("walk: \(record.pointsRead) points read, provinces \(provinces.joined(separator: ","))")
}

// The live API: ten minutes of walking east along Chang'an Avenue from Tiananmen, a point every
// 5 s at 1.4 m/s, fed one by one as a phone delivers them.
var live = try LiveLedger(locator: locator, options: ClassifyOptions())
try live.beginRecording(id: "live/tiananmen-walk", name: "Walk")
var unlocked: [String] = [], newCells = 0
for k in 0..<120 {
    let point = TrackPoint(latitude: 39.9087, longitude: 116.3975 + Double(k) * 7.0 / 85_300, time: 1_714_550_400_000 + Int64(k) * 5_000, accuracy: 10)
    let changes = try live.feed(point)
    unlocked += changes.unlocks().map(\.code)
    newCells += changes.newCells
}
let last = try live.endRecording()
unlocked += last.unlocks().map(\.code)
newCells += last.newCells
print("live: unlocked \(unlocked.joined(separator: ",")); \(newCells) new cells; report \(try live.report().metrics.exploredCellCount) cells")

// The footprint map of the live walk, through `import AdminUnlocks` alone (it re-exports
// FootprintMap): the page an app shows in a web view.
let combined = try live.ledger.combined()
let footprint = Footprint(report: try live.report(), cells: combined.cells, cellPasses: combined.cellPasses, tables: locator.tables)
print("footprint: \(footprint.cellsByPlace.values.reduce(0) { $0 + $1.count }) cells, page \(footprint.html().contains("<!DOCTYPE html>") ? "html" : "not html")")
