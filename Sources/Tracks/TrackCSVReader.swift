#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextFormats

/// Reads CSV tracks, `lat,lon[,time][,accuracy]`, as a stream (one line at a time).
///
/// - Header: optional. A first line whose first field holds a letter (other than `nan`/`inf`)
///   is a header; its columns are recognised by name, case-insensitively and in any order:
///   `lat`/`latitude`; `lon`/`lng`/`long`/`longitude`; `time`/`timestamp`/`date`/`datetime`;
///   `accuracy`/`acc`/`hacc`/`horizontal_accuracy`/`horizontalaccuracy`;
///   `ele`/`elevation`/`alt`/`altitude`. Other columns are ignored. A header without a
///   latitude and a longitude column stops the file. Without a header the columns are
///   positional: latitude, longitude, then optionally time, then accuracy.
/// - Time: ISO-8601 (as ``Timestamp`` reads it), or a Unix epoch number: seconds when its
///   magnitude is below 10¹¹ (up to the year 5138), milliseconds from 10¹¹ up (from March 1973;
///   earlier millisecond times would read as seconds). A fraction is allowed.
/// - Accuracy: metres, non-negative. Empty time, accuracy and elevation fields mean "unknown".
/// - Coordinates are delivered as read, even outside ±90/±180; range checks are the pipeline's.
/// - A line that cannot be read (too few fields, a field that is not a number or time) goes to
///   ``TrackSink/unreadablePoint(_:)`` with its line number; empty lines are skipped. A line
///   longer than ``LineReader/maximumLineLength`` stops the file.
///
/// The file is one segment: no ``TrackSink/segmentBreak()`` is sent (the pipeline's time-gap
/// rule splits it).
public enum TrackCSVReader {
    /// What one file held.
    public struct Summary: Equatable, Sendable {
        /// Points delivered through ``TrackSink/point(_:)``.
        public var points = 0
        /// Lines delivered through ``TrackSink/unreadablePoint(_:)``.
        public var unreadablePoints = 0
        /// Whether the first line was a header.
        public var hasHeader = false

        public init() {}
    }

    /// Where each value is, as column indices.
    struct Columns: Equatable {
        var latitude = 0
        var longitude = 1
        var time: Int? = 2
        var accuracy: Int? = 3
        var elevation: Int?

        /// The columns a header names, or nil when it names no latitude or no longitude.
        init?(header: UnsafeRawBufferPointer) {
            var latitude: Int?, longitude: Int?
            time = nil
            accuracy = nil
            var index = 0
            var start: Int? = 0
            while let from = start {
                let field = CoordinateCSV.field(header, from: from)
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: header[field.range]), as: UTF8.self).lowercased()
                switch name {
                case "lat", "latitude": latitude = latitude ?? index
                case "lon", "lng", "long", "longitude": longitude = longitude ?? index
                case "time", "timestamp", "date", "datetime": time = time ?? index
                case "accuracy", "acc", "hacc", "horizontal_accuracy", "horizontalaccuracy": accuracy = accuracy ?? index
                case "ele", "elevation", "alt", "altitude": elevation = elevation ?? index
                default: break
                }
                index += 1
                start = field.next
            }
            guard let latitude, let longitude else { return nil }
            self.latitude = latitude
            self.longitude = longitude
        }

        /// Positional: lat, lon, time, accuracy.
        init() {}

        /// The last column read.
        var last: Int { max(latitude, longitude, time ?? 0, accuracy ?? 0, elevation ?? 0) }
    }

    /// Reads the CSV in `source` into `sink`; `path` names it in errors.
    ///
    /// - Throws: ``InputError`` when the header names no coordinates or a line is too long.
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var reader = LineReader(source, path: path)
        defer { reader.close() }
        var summary = Summary()
        var columns: Columns?
        try reader.forEachLine { raw, number in
            var line = raw
            if number == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { line = UnsafeRawBufferPointer(rebasing: line[3...]) }
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
            if columns == nil {
                if CoordinateCSV.isHeader(line) {
                    guard let named = Columns(header: line) else {
                        throw InputError(path: path, line: number, reason: "the header names no latitude and longitude columns (expected e.g. 'lat,lon,time,accuracy')")
                    }
                    columns = named
                    summary.hasHeader = true
                    return
                }
                columns = Columns()
            }
            do {
                sink.point(try parseSimple(line, columns!) ?? parse(line, columns!))
                summary.points += 1
            } catch let problem as LineProblem {
                sink.unreadablePoint(InputError(path: path, line: number, reason: problem.reason))
                summary.unreadablePoints += 1
            }
        }
        return summary
    }

    struct LineProblem: Error {
        var reason: String
    }

    /// `parse` for a line whose fields are plain (unpadded, unquoted, not empty) numbers and
    /// ISO-8601 times, nearly every line: each number is read where it starts, without first
    /// searching for its comma. Nil, having decided nothing, for anything else (an empty or
    /// padded field, an epoch time, a value that does not parse): `parse` then reads the line
    /// and words its problem. A field this reads has no padding or quotes to remove, so `parse`
    /// would read the same bytes and find the same value.
    static func parseSimple(_ line: UnsafeRawBufferPointer, _ columns: Columns) -> TrackPoint? {
        var latitude: Double?, longitude: Double?, time: Int64?, accuracy: Double?, elevation: Double?
        let count = line.count, last = columns.last
        var start = 0
        var index = 0
        while index <= last {
            let fieldEnd: Int
            if index == columns.latitude || index == columns.longitude || index == columns.accuracy || index == columns.elevation {
                guard let number = DecimalNumber.parsePrefix(UnsafeRawBufferPointer(rebasing: line[start...])) else { return nil }
                fieldEnd = start + number.length
                guard fieldEnd == count || line[fieldEnd] == UInt8(ascii: ",") else { return nil }
                if index == columns.latitude {
                    latitude = number.value
                } else if index == columns.longitude {
                    longitude = number.value
                } else if index == columns.accuracy {
                    guard number.value >= 0 else { return nil }
                    accuracy = number.value
                } else {
                    elevation = number.value
                }
            } else {
                let comma = start < count ? memchr(line.baseAddress! + start, Int32(UInt8(ascii: ",")), count - start) : nil
                fieldEnd = comma.map { line.baseAddress!.distance(to: UnsafeRawPointer($0)) } ?? count
                if index == columns.time {
                    guard fieldEnd > start, let parsed = Timestamp.parse(UnsafeRawBufferPointer(rebasing: line[start..<fieldEnd])) else { return nil }
                    time = parsed
                }
            }
            if fieldEnd == count { break }
            start = fieldEnd + 1
            index += 1
        }
        guard let latitude, let longitude else { return nil }
        return TrackPoint(latitude: latitude, longitude: longitude, time: time, accuracy: accuracy, elevation: elevation)
    }

    /// One data line as a point.
    static func parse(_ line: UnsafeRawBufferPointer, _ columns: Columns) throws -> TrackPoint {
        // The fields the columns name, found in one pass without allocating; empty means absent.
        var latitudeField = 0..<0, longitudeField = 0..<0, timeField = 0..<0, accuracyField = 0..<0, elevationField = 0..<0
        let last = columns.last
        var index = 0
        var start = 0
        while index <= last {
            let field = CoordinateCSV.field(line, from: start)
            if !field.range.isEmpty {
                if index == columns.latitude { latitudeField = field.range }
                if index == columns.longitude { longitudeField = field.range }
                if index == columns.time { timeField = field.range }
                if index == columns.accuracy { accuracyField = field.range }
                if index == columns.elevation { elevationField = field.range }
            }
            guard let next = field.next else { break }
            index += 1
            start = next
        }
        let latitude = try number(line, latitudeField, "latitude", required: true) ?? 0
        let longitude = try number(line, longitudeField, "longitude", required: true) ?? 0
        var time: Int64?
        if !timeField.isEmpty {
            let bytes = UnsafeRawBufferPointer(rebasing: line[timeField])
            guard let parsed = Timestamp.parse(bytes) ?? epochMilliseconds(bytes) else {
                throw LineProblem(reason: "time '\(shown(bytes))' is neither ISO-8601 nor epoch seconds or milliseconds")
            }
            time = parsed
        }
        let accuracy = try number(line, accuracyField, "accuracy", required: false, nonNegative: true)
        let elevation = try number(line, elevationField, "elevation", required: false)
        return TrackPoint(latitude: latitude, longitude: longitude, time: time, accuracy: accuracy, elevation: elevation)
    }

    /// The number in `line[field]`; nil when the field is empty and not `required`.
    @inline(__always)
    private static func number(_ line: UnsafeRawBufferPointer, _ field: Range<Int>, _ name: StaticString,
                               required: Bool, nonNegative: Bool = false) throws -> Double? {
        guard !field.isEmpty else {
            if required { throw LineProblem(reason: "no \(name) (expected 'lat,lon[,time][,accuracy]')") }
            return nil
        }
        let bytes = UnsafeRawBufferPointer(rebasing: line[field])
        guard let parsed = DecimalNumber.parse(bytes), !nonNegative || parsed >= 0 else {
            throw LineProblem(reason: "\(name) '\(shown(bytes))' is not a\(nonNegative ? " non-negative" : "") number")
        }
        return parsed
    }

    /// A field as shown in a problem: its first 40 bytes.
    private static func shown(_ value: UnsafeRawBufferPointer) -> String {
        String(decoding: value.prefix(40), as: UTF8.self)
    }

    /// A Unix time: seconds below 10¹¹ in magnitude, milliseconds from there on.
    static func epochMilliseconds(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard bytes.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
              let value = DecimalNumber.parse(bytes), abs(value) < 1e16 else { return nil }
        let milliseconds = abs(value) < 1e11 ? value * 1000 : value
        return Int64(milliseconds.rounded(.down))
    }
}
