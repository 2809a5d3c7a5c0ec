import Tracks

extension UnlockLedger {
    /// Per region, the local days (in `zone`) of its counted moments in it: the minutes each
    /// input stands for (``InputStanding/lostMinutes`` left out: another input stood for them)
    /// with a kept, timed ground point placed inside the region or at its edge — the report's
    /// `visitDays` and `stays`. Points in flight have no place, and points only passed at vehicle
    /// speed (a lone point a vehicle passed nearby included, ``InputStanding/demotedLone``) or
    /// untimed are left out; so are superseded readings (``CombinedLedger/standing``). Computed
    /// from the inputs' per-minute places, which the state keeps: merging unions the inputs,
    /// forgetting an input removes its own, and the rule is the combined view's, so one run,
    /// runs through a state, merged shards and a ``LiveLedger`` agree.
    public func visitDays(zone: LocalTimeZone, standing: [String: InputStanding]) -> [RegionKey: Set<Int64>] {
        var clock = LocalDayClock(zone: zone)
        var days: [RegionKey: Set<Int64>] = [:]
        for (fingerprint, part) in contributions where inputs[fingerprint] != nil && standing[fingerprint]?.supersededBy == nil {
            let own = standing[fingerprint] ?? InputStanding()
            let regions: [[RegionKey]] = part.places.map { place in
                place.entries.filter { $0.kind == .inside || $0.kind == .edge }.map(\.key)
            }
            // In time order, so the clock's remembered day serves a whole track.
            for minute in part.moments.keys.sorted() where minute != MomentTally.untimedMinute && !own.lostMinutes.contains(minute) {
                var day: Int64?
                for entry in part.moments[minute]!.places where entry.points > 0 && entry.place >= 0 && Int(entry.place) < regions.count {
                    let local = day ?? clock.day(of: minute &* 60_000)
                    day = local
                    for key in regions[Int(entry.place)] where !(part.places[Int(entry.place)].isLone && own.demotedLone[key]?.contains(minute) == true) {
                        days[key, default: []].insert(local)
                    }
                }
            }
        }
        return days
    }
}
