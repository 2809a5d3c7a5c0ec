import Foundation
import RegionTables
import Tracks

// The report as text for a terminal, rendered from the accumulated figures.

extension ClassifyReport {
    /// A summary for a terminal: inputs, points, metrics, and a table of unlocks per level.
    /// `countryNames` names the countries and their subdivisions in a person's language (Unicode
    /// CLDR, ``RegionNames``) instead of the tables' names; China's provinces, cities and counties
    /// keep Chinese and English.
    public func text(countryNames: LocalizedNames? = nil) -> String {
        guard let countryNames else { return plainText() }
        var named = self
        func local(_ code: String) -> String? { countryNames.name(of: code) }
        let levels: [RegionLevel] = [.country, .subdivision]
        for level in levels {
            named.unlocks[level] = unlocks[level]?.map { u in
                var u = u
                if let name = local(u.code) { (u.name, u.englishName) = (name, "") }
                return u
            }
            named.progress.mostExplored[level] = progress.mostExplored[level]?.map { r in
                var r = r
                if let name = local(r.code) { (r.name, r.englishName) = (name, "") }
                return r
            }
        }
        named.progress.children = progress.children.map { c in
            var c = c
            if c.level == .country, let name = local(c.code) { (c.name, c.englishName) = (name, "") }
            return c
        }
        func renamed(_ lists: [RegionLevel: [Changes.Region]]) -> [RegionLevel: [Changes.Region]] {
            var lists = lists
            for level in levels {
                lists[level] = lists[level]?.map { r in
                    var r = r
                    if let name = local(r.code) { (r.name, r.englishName) = (name, "") }
                    return r
                }
            }
            return lists
        }
        if let changes {
            named.changes?.unlocked = renamed(changes.unlocked)
            named.changes?.confirmed = renamed(changes.confirmed)
            named.changes?.lost = renamed(changes.lost)
        }
        return named.plainText()
    }

    private func plainText() -> String {
        let totals = pointTotals
        var out = changes?.text() ?? ""
        out += "Inputs: \(count(.read)) read in full"
        for (status, words) in [(InputRecord.Status.partial, "in part"), (.rejected, "rejected"), (.skipped, "skipped"), (.planned, "planned (unlocking nothing)")] where count(status) > 0 {
            out += ", \(count(status)) \(words)"
        }
        if supersededCount > 0 { out += ", \(supersededCount) superseded by a later reading of the same path" }
        out += "\n"
        for input in inputs where input.status == .partial || input.status == .rejected {
            out += "  \(input.status.rawValue): \(input.path): \(input.error ?? "")\n"
        }
        let skipped = inputs.filter { $0.status == .skipped }
        if skipped.count <= Self.skippedNamedInText {
            for input in skipped {
                out += "  skipped: \(input.path): \(input.skipReason?.description ?? "")" + (input.duplicateOf.map { " of \($0)" } ?? "") + "\n"
            }
        } else {
            out += "  skipped: " + skippedByReason.map { "\($0.count) \($0.reason)" }.joined(separator: ", ") + "\n"
        }
        let pins = inputTotals.pins
        if pins > 0 { out += "Pins: \(pins) (waypoints and placemarks: counted, not classified)\n" }
        let drops = DropReason.allCases.compactMap { r in totals.dropped[r].map { "\(r.rawValue) \($0)" } }
        out += "Points: \(totals.read) read, \(totals.kept) kept (\(totals.inFlight) in flight)"
        let overlapping = inputs.filter { !overlaps(of: $0).isEmpty }.count
        if overlapping > 0 { out += ", \(pointsCounted) counted (\(overlapping) inputs recorded the same moments, counted once)" }
        out += drops.isEmpty ? "\n" : ", dropped: " + drops.joined(separator: ", ") + "\n"
        let m = metrics
        out += "\nDistance: \(fixed(m.totalDistanceKilometers, 1)) km on foot or by bike (walking, running, cycling, hiking: what distance badges count); "
        out += "\(fixed(m.vehicleDistanceKilometers, 1)) km by car, train or boat; \(fixed(m.flightDistanceKilometers, 1)) km flown\n"
        out += "Time: \(fixed(m.totalDurationHours, 1)) h recorded over \(counted(m.recordedDays, "day", "days")) (local days in \(options.timeZone.fixedMinutes.map { "UTC" + LocalTimeZone.offsetText($0) } ?? options.timeZone.description))\n"
        if let span = recordedSpan {
            out += "Streak: \(counted(m.currentStreakDays, "day", "days")) in a row up to the last recorded day, \(Self.dateText(span.last)); longest \(counted(m.longestStreakDays, "day", "days"))\n"
        }
        out += "Worldview: \(worldview.rawValue) (whose borders the countries follow)\n"
        out += "Unlocked: " + [counted(m.countryCount, "country", "countries"), counted(m.subdivisionCount, "subdivision", "subdivisions"),
                              counted(m.chinaProvinceCount, "province", "provinces"),
                              counted(m.cityUnlockCount, "city", "cities"), counted(m.countyUnlockCount, "county", "counties")].joined(separator: ", ")
        let included = (lenient ? ["tentative"] : []) + (includePassedThrough ? ["passed through"] : [])
        out += included.isEmpty ? "\n" : " (\(included.joined(separator: " and ")) included)\n"
        if !continents.isEmpty {
            out += "Continents: \(continents.count) (" + continents.map { "\($0.name): \(counted($0.countries.count, "country", "countries"))" }.joined(separator: ", ") + ")\n"
        }
        out += "Explored: \(fixed(m.globalAreaKm2, 3)) km² (\(counted(m.exploredCellCount, "cell", "cells"))), in China \(fixed(m.chinaAreaKm2, 3)) km²\n"
        for t in tiles {
            out += "Tiles z\(t.zoom): \(t.visited) visited, \(counted(t.clusterTiles, "cluster tile", "cluster tiles")), largest cluster \(t.largestCluster), max square \(t.maxSquare)×\(t.maxSquare)\n"
        }
        out += "Familiar cells: \(m.familiarCells.lit) lit, \(m.familiarCells.bright) bright, \(m.familiarCells.gold) gold\n"
        if !years.isEmpty {
            let heading = "new " + RegionLevel.reported.map(\.plural).joined(separator: ", ")
            out += "\nYear  on foot/bike  days  " + heading + "    explored\n"
            for y in years {
                let new = RegionLevel.reported.map { String(y.newUnlocks[$0.level] ?? 0) }.joined(separator: ", ")
                out += "\(y.year)" + leftPad(fixed(Double(y.distanceMillimetres) / 1e6, 1) + " km", 15) + leftPad("\(y.recordedDays)", 6)
                out += "  " + new + String(repeating: " ", count: max(0, heading.count + 4 - new.count)) + leftPad(fixed(y.newSquareMetres / 1e6, 3) + " km²", 12) + "\n"
            }
        }
        out += progressText()
        for (plural, level) in RegionLevel.reported {
            let title = plural.prefix(1).uppercased() + plural.dropFirst()
            let rows = unlocks[level] ?? []
            guard !rows.isEmpty else { continue }
            out += "\n\(title)\n"
            let nameWidth = rows.map { displayWidth(label($0)) }.max() ?? 0
            for u in rows {
                let name = label(u)
                let date = u.firstVisit.time.map { String(Timestamp.format($0, offsetMinutes: options.timeZone.offsetMinutes(at: $0)).prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "untimed         "
                out += "  " + (u.code + "      ").prefix(8) + name + String(repeating: " ", count: nameWidth - displayWidth(name) + 2)
                out += date + leftPad("\(u.visitDays) d", 7) + "  " + leftPad(fixed(u.exploredSquareMetres / 1e6, 3), 9) + " km²"
                out += " of " + leftPad(fixed(u.areaSquareMetres / 1e6, 0), 8) + " km² " + leftPad(u.exploredPercent.map(percentText) ?? "-", 12)
                out += u.confirmed ? "\n" : u.passedThrough ? "  passed through\n" : "  tentative\n"
            }
        }
        out += staysText()
        if let badges, !badges.isEmpty {
            out += "\nBadges\n"
            let idWidth = badges.map { $0.id.count }.max() ?? 0
            for b in badges {
                out += "  " + b.id + String(repeating: " ", count: idWidth - b.id.count + 2) + (b.track.rawValue + "            ").prefix(13)
                out += leftPad("\(b.percent)%", 4) + (b.reportedPercent > b.percent ? " (reported \(b.reportedPercent)%)" : "")
                out += "  \(b.metric) \(compact(b.value)) of \(compact(b.target))" + (b.achieved ? "  achieved\n" : "\n")
            }
        }
        return out + Self.glossary
    }

    /// One line for each word of the report a person may not know.
    static let glossary = """

        What the words mean
          confirmed: a point was recorded well inside the region, on the ground at walking, cycling or stopping speed
          tentative: the points were near its border or untimed (counted with --lenient)
          passed through: it was only crossed at vehicle speed, by car, train or boat (counted with --include-passed-through)
          cell: a square of about 25 m × 25 m of ground; explored once a walk or ride went through it
          explorer tile: a square of a web map (zoom 14: about 1.9 km; zoom 17: about 240 m) that a walk or ride touched
          cluster tile: a visited tile whose four neighbours (north, south, east, west) are visited too
          max square: the side of the largest square block of visited tiles (5×5: 25 tiles with none missing)
          lit: a cell passed through at least once (moving, a pass counted only more than 4 hours after the last)
          bright: a cell passed through 5 times or more, such passes apart
          gold: a cell passed through 20 times or more: a street of your everyday life

        """

    /// Each country's days, per year and as stays (runs of consecutive local days); a year of
    /// 183 days or more is marked (the residence test of many countries' tax rules).
    private func staysText() -> String {
        let countries = (unlocks[.country] ?? []).filter { $0.visitDays > 0 }
        guard !countries.isEmpty else { return "" }
        var out = "\nDays per country (local days on the ground there; a stay is a run of consecutive days)\n"
        for u in countries {
            let years = u.daysPerYear.map { "\($0.year): \($0.days) d" + ($0.reachesResidence ? " (183-day mark reached)" : "") }.joined(separator: ", ")
            let longest = u.stays.max { ($0.days, $1.from) < ($1.days, $0.from) }!
            out += "  \(label(u)): \(u.visitDays) d — \(years); \(counted(u.stays.count, "stay", "stays")), the longest "
            out += "\(counted(longest.days, "day", "days")) (\(Self.dateText(longest.from))" + (longest.days > 1 ? " – \(Self.dateText(longest.to)))\n" : ")\n")
        }
        return out
    }

    /// The progress section: most explored, children unlocked, nearest not unlocked.
    private func progressText() -> String {
        let p = progress
        var out = ""
        func label(_ name: String, _ english: String) -> String { english.isEmpty || english == name ? name : "\(name) \(english)" }
        let ranked = RegionLevel.reported.map(\.level).compactMap { level in
            p.mostExplored[level].map { list in
                "  \(level.plural): " + list.prefix(3).map { label($0.name, $0.englishName) + " " + percentText($0.exploredPercent) }.joined(separator: ", ")
            }
        }
        if !ranked.isEmpty { out += "\nMost explored\n" + ranked.joined(separator: "\n") + "\n" }
        if !p.children.isEmpty {
            out += "Unlocked within\n"
            for c in p.children { out += "  \(label(c.name, c.englishName)): \(c.unlocked) of \(c.total) \(c.childLevel.plural)\n" }
        }
        if let from = p.from, !p.nearest.isEmpty {
            out += "Nearest not unlocked, from \(fixed(from.latitude, 5)), \(fixed(from.longitude, 5)) (the newest explored cell, in China if any)\n"
            for level in [RegionLevel.city, .county] {
                guard let n = p.nearest[level] else { continue }
                var way = ""
                if n.acrossSea { way += " across the sea" }
                if !n.through.isEmpty { way += " through " + n.through.joined(separator: ", ") }
                out += "  \(level.name): \(label(n.name, n.englishName)) \(fixed(n.distanceMetres / 1000, 1)) km\(way)\n"
            }
        }
        return out
    }

    /// `count` and the noun that agrees with it ("1 country", "0 countries", "2 countries").
    func counted<Count: BinaryInteger>(_ count: Count, _ singular: String, _ plural: String) -> String {
        "\(count) " + (count == 1 ? singular : plural)
    }

    /// A number as short as it reads: whole numbers without decimals, others to three.
    private func compact(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : fixed(value, 3)
    }

    private func label(_ u: Unlock) -> String {
        u.englishName.isEmpty || u.englishName == u.name ? u.name : "\(u.name) \(u.englishName)"
    }
}
