// The life of a person's footprint in an app, through the one type: docs/embedding.md shows this
// file as it is (Scripts/check-embedding builds and runs it; RepositoryTests keeps the two equal).
import AdminUnlocks
import Foundation

let arguments = CommandLine.arguments            // STORE SAMPLES-FOLDER ZIP BADGES
let store = URL(fileURLWithPath: arguments[1])
let locator = try RegionLocator.bundled(marginRadius: 120)   // open once, share everywhere

// Open (or create) the person's logbook, and import a folder and a zip of their exports.
let logbook = try Logbook(at: store, locator: locator)
let imported = try await logbook.importSources([.url(URL(fileURLWithPath: arguments[2])), .url(URL(fileURLWithPath: arguments[3]))]) { event in
    if case let .progress(p) = event { _ = p.points }  // show a progress bar
}
print("imported \(imported.inputs.count) inputs, \(imported.report.changes?.unlocked[.county]?.count ?? 0) counties new")

// Unlocks and badges (a badge's reported percent never goes down: what Game Center wants).
let catalog = try BadgeCatalog(json: Array(try Data(contentsOf: URL(fileURLWithPath: arguments[4]))), path: arguments[4])
let report = try await logbook.report(ReportOptions(badges: catalog))
let provinces = (report.unlocks[.province] ?? []).filter(\.confirmed).map(\.englishName)
print("provinces: \(provinces.joined(separator: ", ")); badges achieved: \((report.badges ?? []).filter(\.achieved).count)")

// Record live: locations as the phone delivers them, a batch at a time, each batch saved.
try await logbook.beginRecording(id: "live/\(UUID().uuidString)", name: "Evening walk")
let walk = (0..<120).map { k in
    TrackPoint(latitude: 39.9087, longitude: 116.3975 + Double(k) * 7 / 85_300, time: 1_714_550_400_000 + Int64(k) * 5_000, accuracy: 10)
}
var newCells = 0
for batch in stride(from: 0, to: walk.count, by: 40) {
    let changes = try await logbook.record(Array(walk[batch..<min(batch + 40, walk.count)]))
    newCells += changes.newCells
    for unlock in changes.unlocks() { print("unlocked \(unlock.englishName)") }
}
try await logbook.endRecording()

// What a native map draws in its viewport: the explored 25 m cells, from the store's R-tree.
let viewport = GeoBox(south: 39.90, west: 116.38, north: 39.92, east: 116.42)
let cells = try await logbook.cells(in: viewport)
print("recorded \(newCells) new cells; viewport holds \(cells.count) cells")

// Saved as it goes: reopened, it is the same footprint.
let before = try await logbook.report()
let again = try await Logbook(at: store, locator: locator).report()
print("reopened: \(again.metrics.exploredCellCount) cells, \(again.inputs.count) inputs, same: \(again.metrics == before.metrics)")
