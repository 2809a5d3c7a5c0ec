import Tracks

extension UnlockLedger {
    /// Per region, the local days (in `zone`) on which a kept, timed ground point was placed in
    /// it inside or at its edge: the report's `visitDays`. Points in flight have no place, and
    /// points only passed at vehicle speed or untimed are left out; so are superseded readings
    /// (`standing`, ``CombinedLedger/standing``). Computed from the inputs' per-minute places,
    /// which the state keeps: merging unions the days, forgetting an input removes its own.
    public func visitDays(zone: LocalTimeZone, standing: [String: InputStanding]) -> [RegionKey: Set<Int64>] {
        var clock = LocalDayClock(zone: zone)
        var days: [RegionKey: Set<Int64>] = [:]
        for (fingerprint, part) in contributions where inputs[fingerprint] != nil && standing[fingerprint]?.supersededBy == nil {
            let regions: [[RegionKey]] = part.places.map { place in
                place.entries.filter { $0.kind == .inside || $0.kind == .edge }.map(\.key)
            }
            // In time order, so the clock's remembered day serves a whole track.
            for minute in part.moments.keys.sorted() where minute != MomentTally.untimedMinute {
                var day: Int64?
                for entry in part.moments[minute]!.places where entry.points > 0 && entry.place >= 0 && Int(entry.place) < regions.count {
                    let local = day ?? clock.day(of: minute &* 60_000)
                    day = local
                    for key in regions[Int(entry.place)] { days[key, default: []].insert(local) }
                }
            }
        }
        return days
    }
}
