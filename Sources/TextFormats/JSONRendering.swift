extension JSONValue {
    /// JSON text with members in the order given and two-space indentation, so equal values give
    /// byte-identical output. Integral numbers print without a fraction; others in Swift's
    /// shortest round-trip form. Non-finite numbers become null (JSON has no NaN).
    public func rendered(indent: Int = 0) -> String {
        String(decoding: renderedUTF8(indent: indent), as: UTF8.self)
    }

    /// ``rendered(indent:)``, except that values nested `compactDepth` levels deep (the document
    /// itself is level 0) are written compactly on one line: long lists of records stay one per
    /// line, readable and far smaller.
    public func rendered(indent: Int = 0, compactDepth: Int) -> String {
        String(decoding: renderedUTF8(indent: indent, compactDepth: compactDepth), as: UTF8.self)
    }

    /// ``rendered(indent:compactDepth:)`` as UTF-8 bytes (for large documents written to files).
    public func renderedUTF8(indent: Int = 0, compactDepth: Int = .max) -> [UInt8] {
        var out: [UInt8] = []
        render(into: &out, indent: indent, depth: 0, compactDepth: compactDepth)
        return out
    }

    /// The same JSON on one line, without spaces (for JSON Lines output).
    public func compactRendered() -> String {
        String(decoding: compactRenderedUTF8(), as: UTF8.self)
    }

    /// ``compactRendered()`` as UTF-8 bytes.
    public func compactRenderedUTF8() -> [UInt8] {
        var out: [UInt8] = []
        renderCompact(into: &out)
        return out
    }

    private func renderCompact(into out: inout [UInt8]) {
        switch self {
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.renderCompact(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.renderCompact(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        default: render(into: &out, indent: 0, depth: 0, compactDepth: .max)
        }
    }

    private static func newline(_ indent: Int, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
    }

    private func render(into out: inout [UInt8], indent: Int, depth: Int, compactDepth: Int) {
        switch self {
        case .null: out += "null".utf8
        case let .bool(b): out += (b ? "true" : "false").utf8
        case let .number(n): out += Self.format(n).utf8
        case let .string(s): Self.quote(s, into: &out)
        case let .array(items):
            if items.isEmpty { out += "[]".utf8; return }
            if depth >= compactDepth { return renderCompact(into: &out) }
            if items.allSatisfy({ if case .number = $0 { return true } else { return false } }) {
                out.append(UInt8(ascii: "["))
                for (i, item) in items.enumerated() {
                    if i > 0 { out += ", ".utf8 }
                    item.render(into: &out, indent: 0, depth: 0, compactDepth: .max)
                }
                out.append(UInt8(ascii: "]"))
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(indent + 2, into: &out)
                item.render(into: &out, indent: indent + 2, depth: depth + 1, compactDepth: compactDepth)
            }
            Self.newline(indent, into: &out)
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            if members.isEmpty { out += "{}".utf8; return }
            if depth >= compactDepth { return renderCompact(into: &out) }
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(indent + 2, into: &out)
                Self.quote(member.key, into: &out)
                out += ": ".utf8
                member.value.render(into: &out, indent: indent + 2, depth: depth + 1, compactDepth: compactDepth)
            }
            Self.newline(indent, into: &out)
            out.append(UInt8(ascii: "}"))
        case let .coordinates(array):
            // Nested as in the document (counts give each array's length), not flattened.
            var next = Array(repeating: 0, count: array.depth), value = 0
            Self.renderCoordinates(array, level: 0, next: &next, value: &value, into: &out)
        }
    }

    private static func renderCoordinates(_ array: CoordinateArray, level: Int, next: inout [Int], value: inout Int, into out: inout [UInt8]) {
        guard level < array.counts.count, next[level] < array.counts[level].count else { out += "[]".utf8; return }
        let children = array.counts[level][next[level]]
        next[level] += 1
        out.append(UInt8(ascii: "["))
        for i in 0..<children {
            if i > 0 { out += ", ".utf8 }
            if level == array.depth - 1 {
                out += format(array.values[value]).utf8
                value += 1
            } else {
                renderCoordinates(array, level: level + 1, next: &next, value: &value, into: &out)
            }
        }
        out.append(UInt8(ascii: "]"))
    }

    static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) <= 0x1p53 { return String(Int64(n)) }  // "\(n)" would add ".0" up to 2^53
        return "\(n)"
    }

    static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: appended whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s.utf8
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += "\\\"".utf8
            case UInt8(ascii: "\\"): out += "\\\\".utf8
            case UInt8(ascii: "\n"): out += "\\n".utf8
            case UInt8(ascii: "\r"): out += "\\r".utf8
            case UInt8(ascii: "\t"): out += "\\t".utf8
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                out += ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Rounds to `decimals` places, for figures in reports (so noise digits do not churn diffs).
public func rounded(_ value: Double, _ decimals: Int) -> Double {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    return (value * scale).rounded() / scale
}
