extension JSONValue {
    /// JSON text with members in the order given and two-space indentation, so equal values give
    /// byte-identical output. Integral numbers print without a fraction; others in Swift's
    /// shortest round-trip form. Non-finite numbers become null (JSON has no NaN).
    public func rendered(indent: Int = 0) -> String {
        var out = ""
        render(into: &out, indent: indent)
        return out
    }

    /// The same JSON on one line, without spaces (for JSON Lines output).
    public func compactRendered() -> String {
        switch self {
        case let .array(items): return "[" + items.map { $0.compactRendered() }.joined(separator: ",") + "]"
        case let .object(members):
            var out = "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                Self.quote(member.key, into: &out)
                out += ":" + member.value.compactRendered()
            }
            return out + "}"
        default: return rendered()
        }
    }

    private func render(into out: inout String, indent: Int) {
        let pad = String(repeating: " ", count: indent)
        let inner = String(repeating: " ", count: indent + 2)
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .number(n): out += Self.format(n)
        case let .string(s): Self.quote(s, into: &out)
        case let .array(items):
            if items.isEmpty { out += "[]"; return }
            if items.allSatisfy({ if case .number = $0 { return true } else { return false } }) {
                out += "[" + items.map { $0.rendered() }.joined(separator: ", ") + "]"
                return
            }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                item.render(into: &out, indent: indent + 2)
                out += i + 1 < items.count ? ",\n" : "\n"
            }
            out += pad + "]"
        case let .object(members):
            if members.isEmpty { out += "{}"; return }
            out += "{\n"
            for (i, member) in members.enumerated() {
                out += inner
                Self.quote(member.key, into: &out)
                out += ": "
                member.value.render(into: &out, indent: indent + 2)
                out += i + 1 < members.count ? ",\n" : "\n"
            }
            out += pad + "}"
        case let .coordinates(array):
            // Nested as in the document (counts give each array's length), not flattened.
            var next = Array(repeating: 0, count: array.depth), value = 0
            Self.renderCoordinates(array, level: 0, next: &next, value: &value, into: &out)
        }
    }

    private static func renderCoordinates(_ array: CoordinateArray, level: Int, next: inout [Int], value: inout Int, into out: inout String) {
        guard level < array.counts.count, next[level] < array.counts[level].count else { out += "[]"; return }
        let children = array.counts[level][next[level]]
        next[level] += 1
        out += "["
        for i in 0..<children {
            if i > 0 { out += ", " }
            if level == array.depth - 1 {
                out += format(array.values[value])
                value += 1
            } else {
                renderCoordinates(array, level: level + 1, next: &next, value: &value, into: &out)
            }
        }
        out += "]"
    }

    static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) <= 0x1p53 { return String(Int64(n)) }  // "\(n)" would add ".0" up to 2^53
        return "\(n)"
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// Rounds to `decimals` places, for figures in reports (so noise digits do not churn diffs).
public func rounded(_ value: Double, _ decimals: Int) -> Double {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    return (value * scale).rounded() / scale
}
