#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads Garmin FIT activity files (Garmin, COROS, Wahoo, Suunto, Zwift, Strava uploads…) as a
/// stream, in constant memory.
///
/// What it delivers (see `docs/input-formats.md`, "FIT"):
/// - every `record` message with a valid `position_lat` and `position_long` as a
///   ``TrackPoint``: degrees from semicircles, the time from its `timestamp` field or its
///   compressed-timestamp header, elevation from `enhanced_altitude` (else `altitude`), accuracy
///   from `gps_accuracy` (metres). A field holding its base type's invalid value is absent; a
///   record without a position is not a point.
/// - ``TrackSink/segmentBreak()`` at the start of each FIT file of a chain and at a timer stop
///   or start event after points.
/// - ``TrackSink/annotate(_:)``: the activity type from `sport` and `session` messages, the
///   creator from `file_id` (manufacturer and product).
///
/// The file's structure is checked as it is read: the header (size 12 or 14, `.FIT`, its CRC
/// when present and non-zero), every message against the data size the header declares, and the
/// CRC-16 of each file. Any fault stops the file with an ``InputError`` naming the byte offset
/// (from 0); points delivered before it stay delivered — a bad file CRC is found only after the
/// file's points were delivered.
public enum FITReader {
    /// What one file held besides the points it delivered.
    public struct Summary: Equatable, Sendable {
        /// Points delivered through ``TrackSink/point(_:)``.
        public var points = 0
        /// `record` messages, with or without a position.
        public var records = 0
        /// FIT files in the input (more than one when files are chained back to back).
        public var files = 0

        public init() {}
    }

    /// Whether `bytes` begin with a FIT file header: a header size of 12 or 14 and `.FIT` at
    /// bytes 8..<12.
    public static func hasHeader(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 12, let size = bytes.first, size == 12 || size == 14 else { return false }
        let start = bytes.startIndex
        return bytes[start + 8] == 0x2E && bytes[start + 9] == 0x46 && bytes[start + 10] == 0x49 && bytes[start + 11] == 0x54
    }

    /// Reads the FIT file (or chain of FIT files) in `source` into `sink`; `path` names it in errors.
    ///
    /// - Throws: ``InputError`` for problems that stop the file (see the type's description).
    @discardableResult
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, into sink: inout Sink) throws -> Summary {
        var source = source
        var parser = FITParser(path: path)
        defer { parser.deallocate() }
        while true {
            while let event = try parser.next() {
                switch event {
                case .segmentBreak: sink.segmentBreak()
                case let .point(point): sink.point(point)
                case let .annotation(annotation): sink.annotate(annotation)
                }
            }
            if parser.finished { return parser.summary }
            parser.received(try source.read(into: parser.inputSpace()))
        }
    }
}

/// The FIT decoder, a pull parser: `next()` returns one event at a time. Not generic, so it
/// compiles to one fast copy; `FITReader.read` feeds it. A message is decoded only once it is
/// wholly in the buffer; when it is not, `next` returns nil and the unconsumed tail moves to the
/// front for the next read. The buffer holds the largest message FIT can express (a data
/// message of 255 fields and 255 developer fields of 255 bytes each) plus one read.
struct FITParser {
    enum Event {
        case segmentBreak
        case point(TrackPoint)
        case annotation(TrackAnnotation)
    }

    private enum Stage { case header, messages, fileCRC }

    /// What a local message type was defined as.
    private enum Kind: UInt8 { case undefined, record, fileID, sport, session, event, other }

    /// Where one field the reader uses sits in a data message (offset from the record header's
    /// end; -1 when the definition has no such field of a usable size) and the value meaning
    /// "invalid" for its base type.
    private struct Slot {
        var offset = -1
        var size = 0
        var invalid: UInt64 = 0
    }

    private struct Definition {
        var kind = Kind.undefined
        var bigEndian = false
        /// Bytes of a data message after its 1-byte header (fields and developer fields).
        var size = 0
        var timestamp = Slot()
    }

    // Slots per local message type, by kind: record = latitude, longitude, enhanced altitude,
    // altitude, accuracy; file_id = manufacturer, product, product name; sport and session =
    // sport, sub sport; event = event, event type.
    private static let slotsPerType = 5

    private static let readSize = 1 << 16
    /// 1 + 255 × 255 + 255 × 255 bytes, rounded up.
    private static let largestMessage = 1 << 17

    let path: String
    var summary = FITReader.Summary()
    private(set) var finished = false
    private var pending: Event?

    private let capacity: Int
    private let buffer: UnsafeMutablePointer<UInt8>
    private var position = 0
    private var end = 0
    private var atEnd = false
    /// Bytes dropped from the front of the buffer so far: buffer index i is file offset `dropped + i`.
    private var dropped = 0

    private var stage = Stage.header
    /// File offset where the current file's data ends (its CRC follows).
    private var dataEnd = 0
    private var crc = FITCRC()
    /// Buffer index up to which the current file's bytes are folded into `crc`.
    private var crcDone = 0

    private let definitions: UnsafeMutablePointer<Definition>
    private let slots: UnsafeMutablePointer<Slot>
    private var lastTimestamp: UInt32?
    private var pointsSinceBreak = 0
    private var lastActivity: String?
    private var lastCreator: String?

    init(path: String) {
        self.path = path
        capacity = Self.largestMessage + Self.readSize
        buffer = .allocate(capacity: capacity)
        definitions = .allocate(capacity: 16)
        definitions.initialize(repeating: Definition(), count: 16)
        slots = .allocate(capacity: 16 * Self.slotsPerType)
        slots.initialize(repeating: Slot(), count: 16 * Self.slotsPerType)
    }

    /// Frees the buffers (a struct cannot free them by itself).
    func deallocate() {
        buffer.deallocate()
        definitions.deallocate()
        slots.deallocate()
    }

    // MARK: Input

    /// Moves the unconsumed tail to the front and returns the space to read into (never empty:
    /// an incomplete message is shorter than `largestMessage`).
    mutating func inputSpace() -> UnsafeMutableRawBufferPointer {
        if position > 0 {
            if stage != .header { foldCRC() }
            let pending = end - position
            if pending > 0 { memmove(buffer, buffer + position, pending) }
            dropped += position
            end = pending
            position = 0
            crcDone = 0
        }
        return UnsafeMutableRawBufferPointer(start: buffer + end, count: min(capacity - end, Self.readSize))
    }

    mutating func received(_ count: Int) {
        if count == 0 { atEnd = true } else { end += count }
    }

    private mutating func foldCRC() {
        if position > crcDone {
            crc.update(UnsafeRawBufferPointer(start: buffer + crcDone, count: position - crcDone))
            crcDone = position
        }
    }

    private func error(_ reason: String, at index: Int) -> InputError {
        InputError(path: path, reason: "byte \(dropped + index): \(reason)")
    }

    /// Whether the `length` bytes at buffer index `start` are in the buffer; throws when they
    /// run past the data the header declares, or past the end of the input.
    private func available(_ start: Int, _ length: Int, what: String) throws -> Bool {
        if dropped + start + length > dataEnd {
            throw error("\(what) runs past the end of the data the header declares (byte \(dataEnd)); the file is damaged", at: start)
        }
        if start + length > end {
            if atEnd { throw error("the file ends inside \(what) (truncated?)", at: start) }
            return false
        }
        return true
    }

    // MARK: Decoding

    /// The next event, or nil when the buffer holds no further complete message (then
    /// `finished` says whether the input is done, else it needs more bytes).
    mutating func next() throws -> Event? {
        while true {
            if let event = pending {
                pending = nil
                return event
            }
            switch stage {
            case .header:
                guard try header() else { return nil }
            case .messages:
                if dropped + position == dataEnd {
                    stage = .fileCRC
                    continue
                }
                if position >= end {
                    if atEnd { throw error("the file ends before the data the header declares (up to byte \(dataEnd)) (truncated?)", at: position) }
                    return nil
                }
                let recordHeader = buffer[position]
                if recordHeader & 0x80 != 0 {
                    guard try dataMessage(local: Int((recordHeader >> 5) & 3), timeOffset: UInt32(recordHeader & 0x1F)) else { return nil }
                } else if recordHeader & 0x40 != 0 {
                    guard try definition(local: Int(recordHeader & 0x0F), developerFields: recordHeader & 0x20 != 0) else { return nil }
                } else {
                    guard try dataMessage(local: Int(recordHeader & 0x0F), timeOffset: nil) else { return nil }
                }
            case .fileCRC:
                guard try fileCRC() else { return nil }
            }
        }
    }

    /// A file header, at the start or after the previous file of a chain.
    private mutating func header() throws -> Bool {
        if position == end && atEnd {
            if summary.files == 0 { throw error("the file is empty", at: position) }
            finished = true
            return false
        }
        if end - position < 12 {
            if !atEnd { return false }
            throw error(summary.files == 0 ? "too short for a FIT file header (\(end - position) bytes)"
                : "\(end - position) bytes after the end of the FIT file, too few for another file's header", at: position)
        }
        let size = Int(buffer[position])
        let signature = buffer[position + 8] == 0x2E && buffer[position + 9] == 0x46 && buffer[position + 10] == 0x49 && buffer[position + 11] == 0x54
        guard signature, size == 12 || size == 14 else {
            throw error(summary.files == 0 ? "not a FIT file (no \".FIT\" header of 12 or 14 bytes)"
                : "bytes after the end of the FIT file are not another FIT file's header", at: position)
        }
        if end - position < size {
            if !atEnd { return false }
            throw error("the file ends inside the FIT file header (truncated?)", at: position)
        }
        if size == 14 {
            let stored = UInt16(buffer[position + 12]) | UInt16(buffer[position + 13]) << 8
            if stored != 0 {
                var headerCRC = FITCRC()
                headerCRC.update(UnsafeRawBufferPointer(start: buffer + position, count: 12))
                if headerCRC.value != stored {
                    throw error("the header's CRC is \(hex(stored)) but its bytes give \(hex(headerCRC.value)); the file is damaged", at: position + 12)
                }
            }
        }
        let dataSize = UInt32(buffer[position + 4]) | UInt32(buffer[position + 5]) << 8 | UInt32(buffer[position + 6]) << 16 | UInt32(buffer[position + 7]) << 24
        dataEnd = dropped + position + size + Int(dataSize)
        crc = FITCRC()
        crcDone = position
        position += size
        stage = .messages
        summary.files += 1
        for local in 0..<16 { definitions[local] = Definition() }
        lastTimestamp = nil
        pointsSinceBreak = 0
        pending = .segmentBreak
        return true
    }

    /// The two CRC bytes after a file's data.
    private mutating func fileCRC() throws -> Bool {
        if end - position < 2 {
            if !atEnd { return false }
            throw error("the file ends before its CRC (truncated?)", at: position)
        }
        foldCRC()
        let stored = UInt16(buffer[position]) | UInt16(buffer[position + 1]) << 8
        if stored != crc.value {
            throw error("the file's CRC is \(hex(stored)) but its bytes give \(hex(crc.value)); the file is damaged (the points before were read)", at: position)
        }
        position += 2
        crcDone = position
        stage = .header
        return true
    }

    /// A definition message: what the data messages of local type `local` hold from here on.
    private mutating func definition(local: Int, developerFields: Bool) throws -> Bool {
        let start = position
        guard try available(start, 6, what: "a definition message") else { return false }
        let architecture = buffer[start + 2]
        guard architecture <= 1 else {
            throw error("a definition message with architecture \(architecture) (expected 0, little-endian, or 1, big-endian); the file is damaged", at: start)
        }
        let bigEndian = architecture == 1
        let rawGlobal = UInt16(buffer[start + 3]) | UInt16(buffer[start + 4]) << 8
        let global = bigEndian ? rawGlobal.byteSwapped : rawGlobal
        let fieldCount = Int(buffer[start + 5])
        var length = 6 + 3 * fieldCount
        if developerFields {
            guard try available(start, length + 1, what: "a definition message") else { return false }
            length += 1 + 3 * Int(buffer[start + length])
        }
        guard try available(start, length, what: "a definition message") else { return false }

        let kind: Kind
        switch global {
        case FITProfile.record: kind = .record
        case FITProfile.fileID: kind = .fileID
        case FITProfile.sport: kind = .sport
        case FITProfile.session: kind = .session
        case FITProfile.event: kind = .event
        default: kind = .other
        }
        var definition = Definition(kind: kind, bigEndian: bigEndian)
        let slotBase = slots + local * Self.slotsPerType
        for i in 0..<Self.slotsPerType { slotBase[i] = Slot() }
        var offset = 0
        for field in 0..<fieldCount {
            let at = start + 6 + 3 * field
            let number = buffer[at], size = Int(buffer[at + 1]), baseType = buffer[at + 2] & 0x1F
            guard size > 0 else { throw error("a definition message declares field \(number) with size 0; the file is damaged", at: start) }
            if number == FITProfile.timestampField && size == 4 && Self.isInteger(baseType) {
                definition.timestamp = Slot(offset: offset, size: 4, invalid: Self.invalid(baseType))
            } else if let (slot, width) = Self.slot(kind, number) {
                if width == 0 || (size == width && Self.isInteger(baseType)) {
                    slotBase[slot] = Slot(offset: offset, size: size, invalid: Self.invalid(baseType))
                }
            }
            offset += size
        }
        if developerFields {
            let countAt = start + 6 + 3 * fieldCount
            for field in 0..<Int(buffer[countAt]) {
                offset += Int(buffer[countAt + 1 + 3 * field + 1])
            }
        }
        definition.size = offset
        definitions[local] = definition
        position = start + length
        return true
    }

    /// The slot and the size it needs (0: any, for strings) of field `number` in a message of
    /// `kind`, when the reader uses it.
    private static func slot(_ kind: Kind, _ number: UInt8) -> (Int, Int)? {
        switch (kind, number) {
        case (.record, 0): return (0, 4)  // position_lat, semicircles
        case (.record, 1): return (1, 4)  // position_long
        case (.record, 78): return (2, 4)  // enhanced_altitude, m × 5 + 500
        case (.record, 2): return (3, 2)  // altitude, m × 5 + 500
        case (.record, 31): return (4, 1)  // gps_accuracy, m
        case (.fileID, 1): return (0, 2)  // manufacturer
        case (.fileID, 2): return (1, 2)  // product
        case (.fileID, 8): return (2, 0)  // product_name, a string
        case (.sport, 0), (.session, 5): return (0, 1)  // sport
        case (.sport, 1), (.session, 6): return (1, 1)  // sub_sport
        case (.event, 0): return (0, 1)  // event
        case (.event, 1): return (1, 1)  // event_type
        default: return nil
        }
    }

    /// Base types whose values are integers (enums included); floats, strings and byte arrays are not.
    private static func isInteger(_ baseType: UInt8) -> Bool {
        switch baseType {
        case 0...6, 10...12, 14...16: return true
        default: return false
        }
    }

    /// The value of an integer base type that means "invalid" (not recorded).
    private static func invalid(_ baseType: UInt8) -> UInt64 {
        switch baseType {
        case 1: return 0x7F
        case 3: return 0x7FFF
        case 5: return 0x7FFF_FFFF
        case 14: return 0x7FFF_FFFF_FFFF_FFFF
        case 10, 11, 12, 16, 7: return 0
        default: return UInt64.max  // all ones, compared at the field's size
        }
    }

    /// A data message of local type `local`; `timeOffset` from a compressed-timestamp header.
    private mutating func dataMessage(local: Int, timeOffset: UInt32?) throws -> Bool {
        let start = position
        let definition = definitions[local]
        guard definition.kind != .undefined else {
            throw error("a data message of local type \(local) before any definition of it; the file is damaged", at: start)
        }
        guard try available(start, 1 + definition.size, what: "a data message") else { return false }
        position = start + 1 + definition.size
        let fields = UnsafePointer(buffer + start + 1)
        let bigEndian = definition.bigEndian

        var timestamp: UInt32?
        if let value = Self.value(definition.timestamp, fields, bigEndian) {
            timestamp = UInt32(truncatingIfNeeded: value)
            lastTimestamp = timestamp
        } else if let timeOffset, let last = lastTimestamp {
            var time = (last & ~0x1F) &+ timeOffset
            if timeOffset < last & 0x1F { time = time &+ 0x20 }
            timestamp = time
            lastTimestamp = time
        }

        let slotBase = slots + local * Self.slotsPerType
        switch definition.kind {
        case .record:
            summary.records += 1
            guard let latitude = Self.value(slotBase[0], fields, bigEndian), let longitude = Self.value(slotBase[1], fields, bigEndian) else { break }
            var point = TrackPoint(latitude: Double(Int32(truncatingIfNeeded: latitude)) * Self.degreesPerSemicircle,
                                   longitude: Double(Int32(truncatingIfNeeded: longitude)) * Self.degreesPerSemicircle)
            if let timestamp, timestamp >= FITProfile.firstAbsoluteTimestamp {
                point.time = (Int64(timestamp) + FITProfile.epoch) * 1000
            }
            if let altitude = Self.value(slotBase[2], fields, bigEndian) ?? Self.value(slotBase[3], fields, bigEndian) {
                point.elevation = Double(altitude) / 5 - 500
            }
            if let accuracy = Self.value(slotBase[4], fields, bigEndian) {
                point.accuracy = Double(accuracy)
            }
            summary.points += 1
            pointsSinceBreak += 1
            pending = .point(point)
        case .event:
            // Timer start (0), stop (1), stop_all (4), stop_disable (8), stop_disable_all (9).
            guard Self.value(slotBase[0], fields, bigEndian) == 0, let type = Self.value(slotBase[1], fields, bigEndian),
                  [0, 1, 4, 8, 9].contains(type), pointsSinceBreak > 0 else { break }
            pointsSinceBreak = 0
            pending = .segmentBreak
        case .sport, .session:
            guard let sport = Self.value(slotBase[0], fields, bigEndian) else { break }
            let name = FITProfile.sportName(sport, subSport: Self.value(slotBase[1], fields, bigEndian))
            if name != lastActivity {
                lastActivity = name
                pending = .annotation(.activityType(name))
            }
        case .fileID:
            let manufacturer = Self.value(slotBase[0], fields, bigEndian)
            var productName = ""
            let nameSlot = slotBase[2]
            if nameSlot.offset >= 0 {
                let bytes = UnsafeBufferPointer(start: fields + nameSlot.offset, count: nameSlot.size)
                productName = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard manufacturer != nil || !productName.isEmpty else { break }
            var creator = manufacturer.map(FITProfile.manufacturerName) ?? ""
            if !productName.isEmpty {
                creator += creator.isEmpty ? productName : " " + productName
            } else if let product = Self.value(slotBase[1], fields, bigEndian) {
                creator += " product \(product)"
            }
            if creator != lastCreator {
                lastCreator = creator
                pending = .annotation(.creator(creator))
            }
        case .other, .undefined:
            break
        }
        return true
    }

    private static let degreesPerSemicircle = 180.0 / 2_147_483_648.0

    /// The field in `slot` of the data message at `fields`, nil when the definition lacks it or
    /// it holds its base type's invalid value.
    @inline(__always)
    private static func value(_ slot: Slot, _ fields: UnsafePointer<UInt8>, _ bigEndian: Bool) -> UInt64? {
        guard slot.offset >= 0 else { return nil }
        let raw = UnsafeRawPointer(fields + slot.offset)
        let value: UInt64, mask: UInt64
        switch slot.size {
        case 1:
            value = UInt64(raw.load(as: UInt8.self))
            mask = 0xFF
        case 2:
            let bits = raw.loadUnaligned(as: UInt16.self)
            value = UInt64(bigEndian ? UInt16(bigEndian: bits) : UInt16(littleEndian: bits))
            mask = 0xFFFF
        case 4:
            let bits = raw.loadUnaligned(as: UInt32.self)
            value = UInt64(bigEndian ? UInt32(bigEndian: bits) : UInt32(littleEndian: bits))
            mask = 0xFFFF_FFFF
        default:
            return nil
        }
        return value == slot.invalid & mask ? nil : value
    }

    private func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
