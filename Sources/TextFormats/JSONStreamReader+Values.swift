/// Values built from the event stream: one record of a huge array for the record readers
/// (``JSONStreamReader/value(from:member:maximumBytes:)``), or a whole document for
/// ``JSONParser`` (strict: a number beyond `Double`'s range and a value nested deeper than the
/// limit are errors there, as they always were).
extension JSONStreamReader {
    /// Where the value being built starts, its size cap, and whether it is built strictly.
    struct ValueBounds {
        var start: Int
        var line: Int
        var limit: Int
        var strict: Bool
    }

    /// The whole document, strictly, as ``JSONParser/parse(_:)-swift.type.method`` gives it.
    mutating func document() throws -> JSONValue {
        let first = try next()
        let value = try build(first, ValueBounds(start: tokenOffset, line: tokenLine, limit: .max, strict: true))
        let last = try next()
        guard last == .end else { throw error(atToken: "unexpected data after the JSON value") }
        return value
    }

    @inline(__always)
    private func checkSize(_ bounds: ValueBounds) throws {
        if bounds.limit != .max, offset - bounds.start > bounds.limit {
            throw JSONStreamError(offset: bounds.start, line: bounds.line, kind: .tooLarge, reason: "value larger than \(bounds.limit) bytes")
        }
    }

    /// A number token's value; strictly, one beyond `Double`'s range is an error at the token.
    private func number(_ bounds: ValueBounds) throws -> Double {
        let value = tokenNumber
        if bounds.strict && !value.isFinite { throw error(atToken: "number out of range") }
        return value
    }

    mutating func build(_ event: JSONEvent, _ bounds: ValueBounds) throws -> JSONValue {
        if bounds.strict, depth >= limits.maximumDepth, event != .arrayStart, event != .objectStart {
            throw JSONStreamError(offset: tokenOffset, line: tokenLine, kind: .tooDeep, reason: "nesting deeper than \(limits.maximumDepth)")
        }
        switch event {
        case .null: return .null
        case let .bool(flag): return .bool(flag)
        case .string: return .string(tokenString)
        case .number: return .number(try number(bounds))
        case .arrayStart:
            var elements: [JSONValue] = []
            while true {
                let next = try next()
                try checkSize(bounds)
                if next == .arrayEnd { return .array(elements) }
                elements.append(try build(next, bounds))
            }
        case .objectStart:
            var members: [(key: String, value: JSONValue)] = []
            while true {
                let next = try next()
                try checkSize(bounds)
                if next == .objectEnd { return .object(members) }
                let key = tokenString
                let valueEvent = try self.next()
                try checkSize(bounds)
                if key == "coordinates", valueEvent == .arrayStart {
                    members.append((key, .coordinates(try coordinates(from: tokenOffset, line: tokenLine, bounds))))
                } else {
                    members.append((key, try build(valueEvent, bounds)))
                }
            }
        default:
            throw error(atToken: "expected a value")
        }
    }

    /// A `coordinates` array whose `[` (at `start`, on `startLine`) was just read: nested arrays of numbers, all
    /// leaves at the depth of the first run of `[`; a `null` leaf is stored as NaN. Errors inside it say what coordinates need
    /// (a number, a `[`, a separator) rather than what JSON in general would.
    mutating func coordinates(from start: Int, line startLine: Int, _ bounds: ValueBounds) throws -> CoordinateArray {
        var nesting = 1
        var event = try coordinatesEvent(leaf: true)
        while event == .arrayStart {
            nesting += 1
            guard nesting <= 8 else {
                throw JSONStreamError(offset: start, line: startLine, reason: "coordinates nested \(nesting) deep; GeoJSON needs at most 4")
            }
            event = try coordinatesEvent(leaf: true)
        }
        var result = CoordinateArray(depth: nesting, values: [], counts: Array(repeating: [], count: nesting))
        var children = Array(repeating: 0, count: nesting)
        var level = nesting - 1
        while true {
            try checkSize(bounds)
            switch event {
            case .number:
                guard level == nesting - 1 else { throw error(atToken: "expected '[' in coordinates") }
                result.values.append(try number(bounds))
                children[level] += 1
            case .null where level == nesting - 1:
                // `[lon, lat, null]`: an elevation not recorded (GeoJSON writers put null there).
                // Kept as NaN, which no number token gives, so a reader can tell it apart.
                result.values.append(.nan)
                children[level] += 1
            case .arrayStart:
                guard level < nesting - 1 else { throw error(atToken: "expected a number in coordinates") }
                level += 1
                children[level] = 0
            case .arrayEnd:
                result.counts[level].append(children[level])
                if level == 0 { return result }
                level -= 1
                children[level] += 1
            default:
                throw error(atToken: level == nesting - 1 ? "expected a number in coordinates" : "expected '[' in coordinates")
            }
            event = try coordinatesEvent(leaf: level == nesting - 1)
        }
    }

    /// The next event inside coordinates, its syntax errors told as coordinates' (`leaf`: a
    /// number is expected next, else a `[`).
    private mutating func coordinatesEvent(leaf: Bool) throws -> JSONEvent {
        do {
            return try next()
        } catch let problem as JSONStreamError where problem.kind == .expectedValue || problem.kind == .expectedSeparator {
            let reason = problem.kind == .expectedSeparator ? "expected ',' or ']' in coordinates"
                : leaf ? "expected a number in coordinates" : "expected '[' in coordinates"
            throw JSONStreamError(offset: problem.offset, line: problem.line, kind: problem.kind, reason: reason)
        }
    }
}
