import AdminUnlocks

@_cdecl("au_logbook_begin_recording")
public func au_logbook_begin_recording(_ logbook: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>?,
                                       _ activityType: UnsafePointer<CChar>?, _ datum: UnsafePointer<CChar>?,
                                       _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        let id = try required(id, "id")
        let name = name.map { String(cString: $0) }, activityType = activityType.map { String(cString: $0) }
        let datum = try datum.map { try ClassifyRequest.datum(named: String(cString: $0), "datum") } ?? .wgs84
        try awaitBlocking { try await logbook.beginRecording(id: id, name: name, activityType: activityType, datum: datum) }
    }
}

@_cdecl("au_logbook_record")
public func au_logbook_record(_ logbook: OpaquePointer?, _ count: Int, _ latitudes: UnsafePointer<Double>?, _ longitudes: UnsafePointer<Double>?,
                              _ times: UnsafePointer<Int64>?, _ accuracies: UnsafePointer<Double>?,
                              _ changes: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                              _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        changes?.pointee = nil
        guard count >= 0 else { throw ArgumentError("count \(count) is negative") }
        guard count == 0 || (latitudes != nil && longitudes != nil) else { throw ArgumentError("latitudes or longitudes is NULL") }
        let points = (0..<count).map { k in
            TrackPoint(latitude: latitudes![k], longitude: longitudes![k], time: times.flatMap { $0[k] == .min ? nil : $0[k] },
                       accuracy: accuracies.flatMap { $0[k].isNaN ? nil : $0[k] })
        }
        let found = try awaitBlocking { try await logbook.record(points) }
        if let changes { try handOver(liveChangesJSON(found).renderedUTF8(), to: changes, length: length) }
    }
}

@_cdecl("au_logbook_break_segment")
public func au_logbook_break_segment(_ logbook: OpaquePointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        try awaitBlocking { try await logbook.breakSegment() }
    }
}

@_cdecl("au_logbook_end_recording")
public func au_logbook_end_recording(_ logbook: OpaquePointer?, _ changes: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                     _ length: UnsafeMutablePointer<Int>?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        changes?.pointee = nil
        let found = try awaitBlocking { try await logbook.endRecording() }
        if let changes { try handOver(liveChangesJSON(found).renderedUTF8(), to: changes, length: length) }
    }
}

/// What a batch of live points changed in the whole logbook, as JSON: the regions whose standing
/// rose (level, code, names, standing and the one before, the visit it rests on) in first-visit
/// order, and the number of cells explored for the first time.
func liveChangesJSON(_ changes: LiveChanges) -> JSONValue {
    func standing(_ value: RegionStanding?) -> JSONValue { value.map { .string($0.name) } ?? .null }
    return .object([
        ("regions", .array(changes.regions.map { change in
            .object([
                ("level", .string(change.level.name)),
                ("code", .string(change.code)),
                ("name", .string(change.name)),
                ("englishName", .string(change.englishName)),
                ("evidence", standing(change.standing)),
                ("previousEvidence", standing(change.previous)),
                ("firstVisit", .object([
                    ("time", change.firstVisit.time.map { .number(Double($0)) } ?? .null),
                    ("lat", .number(change.firstVisit.latitude)),
                    ("lon", .number(change.firstVisit.longitude)),
                ])),
            ])
        })),
        ("newCells", .number(Double(changes.newCells))),
    ])
}
