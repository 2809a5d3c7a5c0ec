import RegionTables
import Tracks

/// What an app fed a recording between two saves, kept as it was fed so that reopening the
/// logbook replays it through a new classifier and continues exactly where it stopped.
package enum RecordingEvent: Equatable, Sendable {
    case point(TrackPoint)
    /// A gap the app knew of (``Logbook/breakSegment()``).
    case segmentBreak
}

/// A batch of recording events as bytes: per event a flags byte (bit 0 time, bit 1 accuracy, bit
/// 2 elevation; 8: a segment break), then latitude and longitude (8 bytes each, IEEE bits), the
/// time as a zig-zag varint delta from the batch's previous time, accuracy and elevation (8 bytes
/// each). Exact: a replayed point is the point fed.
package enum RecordingBatch {
    package static func encode(_ events: [RecordingEvent]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(events.count * 28)
        func double(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        var previousTime: Int64 = 0
        for event in events {
            switch event {
            case .segmentBreak:
                bytes.append(8)
            case let .point(p):
                bytes.append((p.time == nil ? 0 : 1) | (p.accuracy == nil ? 0 : 2) | (p.elevation == nil ? 0 : 4))
                double(p.latitude)
                double(p.longitude)
                if let time = p.time {
                    UnsignedVarint.append(ZigZag.encode(time &- previousTime), to: &bytes)
                    previousTime = time
                }
                if let accuracy = p.accuracy { double(accuracy) }
                if let elevation = p.elevation { double(elevation) }
            }
        }
        return bytes
    }

    /// The events of a batch; nil when the bytes are not a batch.
    package static func decode(_ bytes: [UInt8]) -> [RecordingEvent]? {
        bytes.withUnsafeBytes { raw -> [RecordingEvent]? in
            var offset = 0, events: [RecordingEvent] = [], previousTime: Int64 = 0
            func double() -> Double? {
                guard raw.count - offset >= 8 else { return nil }
                defer { offset += 8 }
                return Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            }
            while offset < raw.count {
                let flags = raw[offset]
                offset += 1
                if flags == 8 { events.append(.segmentBreak); continue }
                guard flags < 8, let latitude = double(), let longitude = double() else { return nil }
                var point = TrackPoint(latitude: latitude, longitude: longitude)
                if flags & 1 != 0 {
                    guard let delta = UnsignedVarint.read(raw, &offset, end: raw.count) else { return nil }
                    previousTime = previousTime &+ ZigZag.decode(delta)
                    point.time = previousTime
                }
                if flags & 2 != 0 { guard let accuracy = double() else { return nil }; point.accuracy = accuracy }
                if flags & 4 != 0 { guard let elevation = double() else { return nil }; point.elevation = elevation }
                events.append(.point(point))
            }
            return events
        }
    }
}
