import AdminUnlocks

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
