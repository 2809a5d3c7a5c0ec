import TextFormats

/// Huawei Health's data export, `Motion path detail data & description/motion path detail
/// data.json`: a top-level array of activities (`sportType`, `startTime`, `endTime`,
/// `totalDistance`, …), each holding its recorded positions as HiTrack records in its `attribute`
/// string: `HW_EXT_TRACK_DETAIL@is` + records separated by line ends + `&&HW_EXT_TRACK_SIMPLIFY@is`
/// + a summary. Exports before mid-2020 nest the activities in `motionPathData` arrays.
///
/// Each activity is a segment; its `tp=lbs` records are read by ``HiTrackReader`` (lost fixes
/// and other record types passed over, bad records unreadable, named by the activity's position in
/// the file). An activity without an `attribute` (an indoor one) delivers nothing.
enum HuaweiMotionPaths {
    /// Whether `element` has a member of Huawei's activities and none of iOS Timeline's path.
    static func looksLikeActivity(_ element: JSONValue) -> Bool {
        (element["attribute"]?.stringValue != nil || element["motionPathData"]?.arrayValue != nil || element["sportType"] != nil)
            && element["timelinePath"] == nil
    }

    static func readActivity<Sink: TrackSink>(_ activity: JSONValue, at start: RecordStart, _ context: RecordContext, _ sink: inout Sink) {
        guard case .object = activity else {
            sink.unreadablePoint(context.problem("motion path is not an object", at: start))
            return
        }
        if let nested = activity["motionPathData"]?.arrayValue {
            for element in nested { readActivity(element, at: start, context, &sink) }
            return
        }
        guard let attribute = activity["attribute"]?.stringValue else { return }
        var detail = Array(attribute.utf8)
        if let marker = find(Array("&&HW_EXT_TRACK_SIMPLIFY@is".utf8), in: detail) { detail.removeSubrange(marker...) }
        let prefix = Array("HW_EXT_TRACK_DETAIL@is".utf8)
        if detail.starts(with: prefix) { detail.removeFirst(prefix.count) }
        sink.segmentBreak()
        var summary = HiTrackReader.Summary()
        // Records end with a line end; some exports escaped it once more (a backslash and `n`).
        detail.withUnsafeBytes { all in
            var from = 0, i = 0
            func record(_ end: Int) {
                if end > from {
                    HiTrackReader.record(UnsafeRawBufferPointer(rebasing: all[from..<end]), &summary, &sink) { context.problem("motion path: \($0)", at: start) }
                }
            }
            while i < all.count {
                if all[i] == 0x0A || all[i] == 0x0D {
                    record(i)
                    i += 1
                    from = i
                } else if all[i] == UInt8(ascii: "\\"), i + 1 < all.count, all[i + 1] == UInt8(ascii: "n") {
                    record(i)
                    i += 2
                    from = i
                } else {
                    i += 1
                }
            }
            record(all.count)
        }
    }

    /// Where `needle` first occurs in `haystack`, or nil.
    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count, let first = needle.first else { return nil }
        var i = 0
        while i + needle.count <= haystack.count {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
