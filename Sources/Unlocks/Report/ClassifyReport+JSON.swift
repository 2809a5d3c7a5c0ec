import Foundation
import RegionTables
import TextFormats
import Tracks

// The report as JSON (docs/report-format.md), rendered from the accumulated figures.

extension ClassifyReport {
    /// The report as JSON (docs/report-format.md), keys in a fixed order.
    public func json() -> JSONValue {
        let totals = pointTotals
        let inputsJSON: [JSONValue] = inputs.map { input in
            var members: [(key: String, value: JSONValue)] = [
                ("path", .string(input.path)), ("format", .string(input.format)), ("status", .string(status(of: input))),
            ]
            if let reason = input.skipReason { members.append(("reason", .string(reason.description))) }
            if let original = input.duplicateOf { members.append(("duplicateOf", .string(original))) }
            if let type = input.activityType { members.append(("activityType", .string(type))) }
            if let name = input.activityName { members.append(("activityName", .string(name))) }
            if let datum = input.datum, datum != .wgs84 { members.append(("datum", .string(datum.rawValue))) }
            if let hint = input.datumHint {
                members.append(("datumHint", .string(hint.datum.rawValue)))
                members.append(("datumHintReason", .string(hint.reason)))
            }
            if input.status != .skipped {
                members += [("pointsRead", .number(Double(input.pointsRead))), ("pointsKept", .number(Double(input.pointsKept))),
                            ("pins", .number(Double(input.pins)))]
                if input.pointsPlanned > 0 { members.append(("pointsPlanned", .number(Double(input.pointsPlanned)))) }
            }
            let shared = overlaps(of: input)
            if !shared.isEmpty, let s = standing[input.fingerprint] {
                members.append(("overlaps", .array(shared.map { .object([("path", .string($0.path)), ("seconds", .number(Double($0.seconds)))]) })))
                members.append(("countedShare", .number(rounded(s.minutes == 0 ? 1 : Double(s.countedMinutes) / Double(s.minutes), 4))))
            }
            if let error = input.error { members.append(("error", .string(error))) }
            return .object(members)
        }
        let levels = RegionLevel.reported
        let zone = options.timeZone
        let unlocksJSON: JSONValue = .object(levels.map { name, level in
            (name, .array((unlocks[level] ?? []).map { u in
                var members: [(key: String, value: JSONValue)] = [("code", .string(u.code)), ("name", .string(u.name))]
                if !u.englishName.isEmpty { members.append(("englishName", .string(u.englishName))) }
                if let parent = u.parentCode { members.append(("parent", .string(parent))) }
                members += [
                    ("evidence", .string(u.evidence.name)),
                    ("firstVisit", .object([
                        ("time", u.firstVisit.time.map { .string(Timestamp.format($0, offsetMinutes: zone.offsetMinutes(at: $0))) } ?? .null),
                        ("latitude", .number(rounded(u.firstVisit.latitude, 7))),
                        ("longitude", .number(rounded(u.firstVisit.longitude, 7))),
                    ])),
                    ("visitDays", .number(Double(u.visitDays))),
                    ("lastVisit", u.lastVisitDay.map { .string(Self.dateText($0)) } ?? .null),
                    ("stays", .array(u.stays.map { stay in
                        .object([("from", .string(Self.dateText(stay.from))), ("to", .string(Self.dateText(stay.to))), ("days", .number(Double(stay.days)))])
                    })),
                    ("daysPerYear", .array(u.daysPerYear.map { y in
                        .object([("year", .number(Double(y.year))), ("days", .number(Double(y.days))), ("reached183Days", .bool(y.reachesResidence))])
                    })),
                    ("insidePoints", .number(Double(u.insidePoints))),
                    ("edgePoints", .number(Double(u.edgePoints))),
                    ("passedPoints", .number(Double(u.passedPoints))),
                    ("exploredKm2", .number(rounded(u.exploredSquareMetres / 1e6, 4))),
                    ("areaKm2", .number(rounded(u.areaSquareMetres / 1e6, 3))),
                    ("exploredPercent", u.exploredPercent.map { .number(rounded($0, 6)) } ?? .null),
                    ("tiles", .object(SlippyTile.reportedZooms.compactMap { zoom in
                        u.tiles[zoom].map { c in (String(zoom), .object([("visited", .number(Double(c.visited))), ("total", c.total.map { .number(Double($0)) } ?? .null),
                                                                       ("percent", c.percent.map { .number(rounded($0, 4)) } ?? .null)])) }
                    })),
                    ("cells", Self.familiarityJSON(u.familiarCells)),
                ]
                return .object(members)
            }))
        })
        let m = metrics
        let options: JSONValue = .object([
            ("lenient", .bool(lenient)),
            ("worldview", .string(worldview.rawValue)),
            ("timeZone", .string(zone.description)),
            ("utcOffset", zone.fixedMinutes.map { .string(LocalTimeZone.offsetText($0)) } ?? .null),
            ("since", self.options.since.map { .string(Self.dateText($0)) } ?? .null),
            ("until", self.options.until.map { .string(Self.dateText($0)) } ?? .null),
            ("inputDatum", .string(self.options.inputDatum.rawValue)),
            ("maximumAccuracyMetres", .number(self.options.maximumAccuracy)),
            ("segmentGapMinutes", .number(Double(self.options.segmentGap) / 60_000)),
            ("exploreMaxSpeedKmh", .number(rounded(self.options.exploreMaxSpeed * 3.6, 3))),
            ("includePlans", .bool(self.options.includePlans)),
            ("includePassedThrough", .bool(includePassedThrough)),
            ("familiarityLevels", .array([self.options.familiarityLevels.lit, self.options.familiarityLevels.bright,
                                          self.options.familiarityLevels.gold].map { .number(Double($0)) })),
        ])
        let inputSummary: JSONValue = .object([
            ("read", .number(Double(count(.read)))),
            ("partial", .number(Double(count(.partial)))),
            ("rejected", .number(Double(count(.rejected)))),
            ("skipped", .number(Double(count(.skipped)))),
            ("planned", .number(Double(count(.planned)))),
            ("superseded", .number(Double(supersededCount))),
            ("skippedByReason", .object(skippedByReason.map { (key: $0.reason.description, value: JSONValue.number(Double($0.count))) })),
            ("pins", .number(Double(inputTotals.pins))),
            ("files", .array(inputsJSON)),
        ])
        // `outsideDates` only when --since/--until select days (no other run drops any);
        // `forgotten` only when a point was (in an area or a period a logbook forgot).
        let dropped: [(key: String, value: JSONValue)] = DropReason.allCases.filter { ($0 != .outsideDates || self.options.selectsDates) && ($0 != .forgotten || totals.dropped[.forgotten] != nil) }.map { ($0.rawValue, .number(Double(totals.dropped[$0] ?? 0))) }
        let points: JSONValue = .object([
            ("read", .number(Double(totals.read))),
            ("kept", .number(Double(totals.kept))),
            ("counted", .number(Double(pointsCounted))),
            ("inFlight", .number(Double(totals.inFlight))),
            ("dropped", .object(dropped)),
        ])
        let counts: [(String, Double)] = [
            ("totalDistanceKilometers", m.totalDistanceKilometers),
            ("vehicleDistanceKilometers", m.vehicleDistanceKilometers),
            ("flightDistanceKilometers", m.flightDistanceKilometers),
            ("totalDurationHours", m.totalDurationHours),
            ("recordedDays", Double(m.recordedDays)),
            ("currentStreakDays", Double(m.currentStreakDays)),
            ("longestStreakDays", Double(m.longestStreakDays)),
            ("countryCount", Double(m.countryCount)),
            ("continentCount", Double(m.continentCount)),
            ("subdivisionCount", Double(m.subdivisionCount)),
            ("chinaProvinceCount", Double(m.chinaProvinceCount)),
            ("cityUnlockCount", Double(m.cityUnlockCount)),
            ("countyUnlockCount", Double(m.countyUnlockCount)),
            ("chinaAreaKm2", m.chinaAreaKm2),
            ("globalAreaKm2", m.globalAreaKm2),
            ("exploredCellCount", Double(m.exploredCellCount)),
        ]
        let metricsJSON: JSONValue = .object(counts.map { (key: $0.0, value: JSONValue.number($0.1)) })
        let daysJSON: JSONValue = .array(days.map { d in
            let date = Timestamp.civilDate(daysSinceEpoch: d.day)
            return .object([
                ("date", .string(String(format: "%04lld-%02lld-%02lld", date.year, date.month, date.day))),
                ("newCells", .number(Double(d.newCells))),
                ("newKm2", .number(rounded(d.newSquareMetres / 1e6, 4))),
                ("newUnlocks", .object(levels.map { name, level in (name, .number(Double(d.newUnlocks[level] ?? 0))) })),
                ("distanceKilometers", .number(rounded(Double(d.distanceMillimetres) / 1e6, 3))),
                ("durationHours", .number(rounded(Double(d.durationMilliseconds) / 3.6e6, 3))),
                ("newTiles", .object(SlippyTile.reportedZooms.map { (String($0), .number(Double(d.newTiles[$0] ?? 0))) })),
            ])
        })
        let yearsJSON: JSONValue = .array(years.map { y in
            .object([
                ("year", .number(Double(y.year))),
                ("distanceKilometers", .number(rounded(Double(y.distanceMillimetres) / 1e6, 3))),
                ("recordedDays", .number(Double(y.recordedDays))),
                ("newUnlocks", .object(levels.map { name, level in (name, .number(Double(y.newUnlocks[level] ?? 0))) })),
                ("newKm2", .number(rounded(y.newSquareMetres / 1e6, 4))),
                ("newCells", .number(Double(y.newCells))),
            ])
        })
        func localDate(_ time: Int64?) -> JSONValue {
            guard let time else { return .null }
            var clock = LocalDayClock(zone: zone)
            let date = Timestamp.civilDate(daysSinceEpoch: clock.day(of: time))
            return .string(String(format: "%04lld-%02lld-%02lld", date.year, date.month, date.day))
        }
        let tilesJSON: JSONValue = .array(tiles.map { t in
            .object([
                ("zoom", .number(Double(t.zoom))),
                ("visited", .number(Double(t.visited))),
                ("clusterTiles", .number(Double(t.clusterTiles))),
                ("largestCluster", .number(Double(t.largestCluster))),
                ("maxSquare", .number(Double(t.maxSquare))),
                ("visitedReached", localDate(t.visitedReached)),
                ("clusterTilesReached", localDate(t.clusterTilesReached)),
                ("largestClusterReached", localDate(t.largestClusterReached)),
                ("maxSquareReached", localDate(t.maxSquareReached)),
                ("maxSquareOrigin", t.maxSquareOrigin.map { .object([("x", .number(Double($0.x))), ("y", .number(Double($0.y)))]) } ?? .null),
            ])
        })
        var members: [(key: String, value: JSONValue)] = [
            ("report", .string("adminunlocks-classify")),
            ("version", .number(2)),
            ("options", options),
        ]
        if let changes { members.append(("changes", changes.json())) }
        members += [
            ("inputs", inputSummary),
            ("points", points),
            ("unlocks", unlocksJSON),
            ("metrics", metricsJSON),
            ("continents", .array(continents.map { c in
                .object([("code", .string(c.code)), ("name", .string(c.name)), ("countries", .array(c.countries.map { .string($0) }))])
            })),
            ("explorer", .object([("tiles", tilesJSON), ("cells", Self.familiarityJSON(m.familiarCells))])),
            ("progress", progressJSON(levels)),
            ("years", yearsJSON),
            ("days", daysJSON),
        ]
        if let badges {
            members.append(("badges", .array(badges.map { b in
                .object([("id", .string(b.id)), ("track", .string(b.track.rawValue)), ("metric", .string(b.metric)),
                         ("value", .number(rounded(b.value, 6))), ("target", .number(b.target)), ("percent", .number(Double(b.percent))),
                         ("reportedPercent", .number(Double(b.reportedPercent))), ("achieved", .bool(b.achieved))])
            })))
        }
        return .object(members)
    }

    /// The `progress` object.
    private func progressJSON(_ levels: [(plural: String, level: RegionLevel)]) -> JSONValue {
        let p = progress
        func named(_ code: String, _ name: String, _ englishName: String) -> [(key: String, value: JSONValue)] {
            [("code", .string(code)), ("name", .string(name))] + (englishName.isEmpty ? [] : [("englishName", .string(englishName))])
        }
        return .object([
            ("mostExplored", .object(levels.map { name, level in
                (name, .array((p.mostExplored[level] ?? []).map { r in
                    .object(named(r.code, r.name, r.englishName) + [("exploredPercent", .number(rounded(r.exploredPercent, 6)))])
                }))
            })),
            ("children", .array(p.children.map { c in
                .object(named(c.code, c.name, c.englishName) + [
                    ("level", .string(c.level.name)), ("childLevel", .string(c.childLevel.name)),
                    ("unlocked", .number(Double(c.unlocked))), ("total", .number(Double(c.total))),
                ])
            })),
            ("from", p.from.map { v in
                .object([("time", v.time.map { .string(Timestamp.format($0, offsetMinutes: options.timeZone.offsetMinutes(at: $0))) } ?? .null),
                         ("latitude", .number(rounded(v.latitude, 7))), ("longitude", .number(rounded(v.longitude, 7)))])
            } ?? .null),
            ("nearest", .object([RegionLevel.city, .county].map { level in
                (level.name, p.nearest[level].map { n in
                    .object(named(n.code, n.name, n.englishName) + (n.parentCode.map { [("parent", .string($0))] } ?? [])
                            + [("distanceKm", .number(rounded(n.distanceMetres / 1000, 3))), ("acrossSea", .bool(n.acrossSea)),
                               ("through", .array(n.through.map { .string($0) }))])
                } ?? .null)
            })),
        ])
    }

    /// `{lit, bright, gold}`: cells that reached each level.
    static func familiarityJSON(_ counts: FamiliarityCounts) -> JSONValue {
        .object([("lit", .number(Double(counts.lit))), ("bright", .number(Double(counts.bright))), ("gold", .number(Double(counts.gold)))])
    }

    static func offsetText(_ minutes: Int) -> String { LocalTimeZone.offsetText(minutes) }

    /// A local day (days since 1970-01-01) as `YYYY-MM-DD`.
    package static func dateText(_ day: Int64) -> String {
        let date = Timestamp.civilDate(daysSinceEpoch: day)
        return String(format: "%04lld-%02lld-%02lld", date.year, date.month, date.day)
    }
}
