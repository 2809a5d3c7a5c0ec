import TextFormats

/// Splits the text of a KML `coordinates` element, piece by piece, into `lon,lat[,alt]` tuples.
///
/// Tuples are separated by white space; white space next to a comma (`116.4, 39.9`, written by
/// some exporters) does not end a tuple. A tuple longer than 128 bytes is unreadable.
struct CoordinateTuples {
    enum Tuple {
        case position(longitude: Double, latitude: Double, altitude: Double?)
        case unreadable(String)
    }

    private var tuple = XMLValue(limit: 128)
    private var gap = false
    /// Where the `coordinates` element starts (problems name it: a tuple has no line of its own
    /// that is cheap to know).
    private(set) var location = XMLLocation(line: 0, offset: 0)

    mutating func reset(at location: XMLLocation) {
        tuple.reset()
        gap = false
        self.location = location
    }

    mutating func feed(_ piece: UnsafeRawBufferPointer, _ emit: (Tuple) -> Void) {
        var start = 0  // of the run of tuple bytes not yet appended
        var i = 0
        while i < piece.count {
            let byte = piece[i]
            if XMLMarkup.isSpace(byte) {
                if i > start { tuple.append(UnsafeRawBufferPointer(rebasing: piece[start..<i])) }
                gap = true
                i += 1
                start = i
                continue
            }
            if gap {
                gap = false
                if !tuple.isEmpty && tuple.last != UInt8(ascii: ",") && byte != UInt8(ascii: ",") {
                    emit(parse())
                    tuple.reset()
                }
            }
            i += 1
        }
        if i > start { tuple.append(UnsafeRawBufferPointer(rebasing: piece[start..<i])) }
    }

    mutating func finish(_ emit: (Tuple) -> Void) {
        if !tuple.isEmpty || tuple.overflow { emit(parse()) }
        tuple.reset()
        gap = false
    }

    private func parse() -> Tuple {
        guard !tuple.overflow else { return .unreadable(tuple.prefix(40) + "…") }
        var numbers: (Double, Double, Double) = (0, 0, 0)
        var found = 0
        let good: Bool = tuple.withTrimmed { bytes in
            var i = 0
            while i <= bytes.count {
                var j = i
                while j < bytes.count, bytes[j] != UInt8(ascii: ",") { j += 1 }
                let field = UnsafeRawBufferPointer(rebasing: bytes[i..<j])
                if let number = DecimalNumber.parse(field) {
                    switch found {
                    case 0: numbers.0 = number
                    case 1: numbers.1 = number
                    case 2: numbers.2 = number
                    default: return false
                    }
                    found += 1
                } else if !(field.isEmpty && j == bytes.count && found >= 2) {  // a trailing comma is fine
                    return false
                }
                i = j + 1
            }
            return found >= 2
        }
        guard good else { return .unreadable(tuple.prefix(40)) }
        return .position(longitude: numbers.0, latitude: numbers.1, altitude: found == 3 ? numbers.2 : nil)
    }
}
