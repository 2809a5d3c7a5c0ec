/// A set of closed time intervals (milliseconds), for asking whether a moment is already covered
/// by what was read earlier in the same file.
///
/// Intervals that touch or overlap are merged as they arrive in time order (the common case), so
/// a day of back-to-back windows costs one entry. At most ``maximumCount`` separate intervals are
/// kept (16 MiB); later ones are not recorded, so a moment in them reads as not covered.
struct TimeWindows {
    static let maximumCount = 1 << 20

    private var windows: [(start: Int64, end: Int64)] = []
    private var sorted = true

    var isEmpty: Bool { windows.isEmpty }

    /// Adds `[start, end]`; an interval with `end < start` is ignored.
    mutating func add(_ start: Int64, _ end: Int64) {
        guard start <= end else { return }
        if let last = windows.last {
            if start >= last.start, start <= last.end {
                windows[windows.count - 1].end = max(last.end, end)
                return
            }
            if start < last.start { sorted = false }
        }
        guard windows.count < Self.maximumCount else { return }
        windows.append((start, end))
    }

    /// Whether `time` lies in one of the intervals.
    mutating func contains(_ time: Int64) -> Bool {
        if !sorted { normalise() }
        // The last interval starting at or before `time`.
        var low = 0, high = windows.count
        while low < high {
            let middle = (low + high) / 2
            if windows[middle].start <= time { low = middle + 1 } else { high = middle }
        }
        return low > 0 && time <= windows[low - 1].end
    }

    /// Sorts by start and merges overlaps, so each lookup is one binary search.
    private mutating func normalise() {
        windows.sort { $0.start < $1.start }
        var merged: [(start: Int64, end: Int64)] = []
        merged.reserveCapacity(windows.count)
        for window in windows {
            if let last = merged.last, window.start <= last.end {
                merged[merged.count - 1].end = max(last.end, window.end)
            } else {
                merged.append(window)
            }
        }
        windows = merged
        sorted = true
    }
}
