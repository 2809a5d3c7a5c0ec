import TextFormats

/// GeoJSON tracks: a FeatureCollection (features streamed one at a time), a Feature, or a bare
/// geometry. LineString and MultiLineString (each line a segment), Point and MultiPoint are
/// read; GeometryCollection members are read without times; areas (Polygon, MultiPolygon) and
/// null geometries are not tracks and are skipped. A third coordinate is the elevation.
///
/// Times: `properties.coordTimes` or `properties.times` — an array aligned with the positions
/// (for a MultiLineString, an array of arrays, one per line), as togeojson and many exporters
/// write — or, for a Point, `properties.time`. A time is an ISO-8601 string or a number of
/// milliseconds since 1970. A times array whose length differs from the positions' is not
/// trusted: the positions are read without times.
///
/// A position's `null` elevation (`[lon, lat, null]`) is no elevation; a `null` longitude or
/// latitude makes that position unreadable, never the file. A FeatureCollection found among
/// `features` has its own features read in its place.
enum GeoJSONTracks {
    /// How deep FeatureCollections nested in `features` are read (deeper ones are unreadable).
    static let maximumCollectionNesting = 8

    private static let geometryTypes: Set<String> = ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"]

    /// The members of a top-level object that make a Feature or a geometry, kept until the
    /// object ends (their order is free).
    struct TopLevel {
        private var members: [(key: String, value: JSONValue)] = []
        private var start: RecordStart?

        mutating func read(key: String, value: JSONEvent, _ reader: inout JSONStreamReader, _ context: RecordContext) throws {
            if start == nil { start = RecordStart(reader) }
            members.append((key, try reader.value(from: value, member: key, maximumBytes: context.featureBytes)))
        }

        /// Reads the Feature or geometry if the object was one; says whether it was.
        func finish<Sink: TrackSink>(_ context: RecordContext, _ sink: inout Sink) -> Bool {
            let object = JSONValue.object(members)
            guard let type = object["type"]?.stringValue, let start else { return false }
            if type == "Feature" {
                readFeature(object, start, context, &sink)
                return true
            }
            if geometryTypes.contains(type) {
                sink.segmentBreak()
                readGeometry(object, properties: nil, start, context, &sink)
                return true
            }
            return false
        }
    }

    /// The `features` array whose `[` was just read.
    static func readFeatures<Sink: TrackSink>(_ reader: inout JSONStreamReader, _ context: RecordContext, _ sink: inout Sink) throws {
        try forEachElement(&reader, maximumBytes: context.featureBytes) { feature, start in
            readFeature(feature, start, context, &sink)
        }
    }

    private static func readFeature<Sink: TrackSink>(_ feature: JSONValue, _ start: RecordStart, _ context: RecordContext, _ sink: inout Sink,
                                                     nesting: Int = 0) {
        if feature["type"]?.stringValue == "FeatureCollection", let features = feature["features"]?.arrayValue, nesting < maximumCollectionNesting {
            // A FeatureCollection inside `features` (not RFC 7946, but written by merging tools):
            // its features are read in place, each as a feature of the file.
            for member in features { readFeature(member, start, context, &sink, nesting: nesting + 1) }
            return
        }
        guard feature["type"]?.stringValue == "Feature" else {
            sink.unreadablePoint(context.problem("element of \"features\" is not a Feature", at: start))
            return
        }
        guard let geometry = feature["geometry"], geometry != .null else { return }
        sink.segmentBreak()
        readGeometry(geometry, properties: feature["properties"], start, context, &sink)
    }

    private static func readGeometry<Sink: TrackSink>(_ geometry: JSONValue, properties: JSONValue?, _ start: RecordStart, _ context: RecordContext, _ sink: inout Sink) {
        let type = geometry["type"]?.stringValue
        if type == "GeometryCollection" {
            for member in geometry["geometries"]?.arrayValue ?? [] {
                sink.segmentBreak()
                readGeometry(member, properties: nil, start, context, &sink)
            }
            return
        }
        let depth: Int
        switch type {
        case "Point": depth = 1
        case "MultiPoint", "LineString": depth = 2
        case "MultiLineString": depth = 3
        case let other? where geometryTypes.contains(other): return  // an area, not a track
        default:
            sink.unreadablePoint(context.problem("geometry type \(type.map { "'\($0)'" } ?? "missing") is not a GeoJSON geometry", at: start))
            return
        }
        guard case let .coordinates(array)? = geometry["coordinates"], array.depth == depth else {
            sink.unreadablePoint(context.problem("\(type ?? "") coordinates are not nested \(depth) deep", at: start))
            return
        }
        let times = properties?["coordTimes"] ?? properties?["times"]
        var cursor = 0
        switch depth {
        case 1:
            readPositions(array, count: 1, from: &cursor, positionSizes: 0, times: properties?["time"].map { [$0] }, start, context, &sink)
        case 2:
            readPositions(array, count: array.counts[0][0], from: &cursor, positionSizes: 0, times: times?.arrayValue, start, context, &sink)
        default:
            let lineTimes = times?.arrayValue
            var positionIndex = 0
            for (line, count) in array.counts[1].enumerated() {
                if line > 0 { sink.segmentBreak() }
                let aligned = lineTimes.flatMap { $0.count == array.counts[1].count ? $0[line].arrayValue : nil }
                readPositions(array, count: count, from: &cursor, positionSizes: positionIndex, times: aligned, start, context, &sink)
                positionIndex += count
            }
        }
    }

    /// `count` positions from value index `cursor`; their sizes are the innermost counts from
    /// index `positionSizes`. `times` is used when it has exactly `count` entries.
    private static func readPositions<Sink: TrackSink>(_ array: CoordinateArray, count: Int, from cursor: inout Int, positionSizes: Int,
                                                       times: [JSONValue]?, _ start: RecordStart, _ context: RecordContext, _ sink: inout Sink) {
        let sizes = array.counts[array.depth - 1]
        let times = times?.count == count ? times : nil
        for index in 0..<count {
            let size = sizes[positionSizes + index]
            defer { cursor += size }
            guard size >= 2 else {
                sink.unreadablePoint(context.problem("position with \(size) number\(size == 1 ? "" : "s")", at: start))
                continue
            }
            let longitude = array.values[cursor]
            let latitude = array.values[cursor + 1]
            // A null elevation (NaN in the array) is one not recorded.
            let elevation = size >= 3 && !array.values[cursor + 2].isNaN ? array.values[cursor + 2] : nil
            guard !longitude.isNaN, !latitude.isNaN else {
                sink.unreadablePoint(context.problem("position with a null longitude or latitude", at: start))
                continue
            }
            guard longitude.isFinite, latitude.isFinite, elevation?.isFinite ?? true else {
                sink.unreadablePoint(context.problem("position with a number out of range", at: start))
                continue
            }
            var time: Int64?
            if let entry = times?[index], entry != .null {
                guard let parsed = parseTime(entry) else {
                    sink.unreadablePoint(context.problem("time \(index) is not an ISO-8601 time or milliseconds", at: start))
                    continue
                }
                time = parsed
            }
            sink.point(TrackPoint(latitude: latitude, longitude: longitude, time: time, elevation: elevation))
        }
    }

    private static func parseTime(_ value: JSONValue) -> Int64? {
        if case let .string(text) = value { return Timestamp.parse(text) }
        return millisecondTime(value)
    }
}
