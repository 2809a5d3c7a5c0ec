/// The one way integers a file states (lengths, sizes, offsets, counts) are taken in:
/// checked against their range before any arithmetic, and every sum, product and rounding of
/// them checked too. A value a crafted file sets near 2^63 or 2^64 (a zip64 size of
/// 0xFFFF…FFFF, a pax record length of 9223372036854775807, a base-256 tar size) ends as an
/// ``InputError`` of kind ``InputError/Kind/damaged`` naming the file, the field and its byte
/// offset, never as a trap. Every container (tar, zip, gzip) and binary reader takes its
/// fields through it (times in seconds go through `Timestamp.milliseconds(fromSeconds:)`); the
/// fuzzer writes 0, 1, 2^31, 2^32, 2^63−1 and 2^64−1 into them (`TrackMutator`'s
/// integer-boundary mutations).
public struct FileIntegers: Sendable {
    /// The file as errors name it.
    public let path: String
    /// What the file is, in errors: `tar archive`, `zip archive`.
    public let format: String

    public init(path: String, format: String) {
        self.path = path
        self.format = format
    }

    /// The error for a field whose value cannot be used: `damaged FORMAT: the FIELD at byte N is
    /// VALUE, RULE`.
    public func error(_ field: String, at offset: Int64?, value: String, _ rule: String) -> InputError {
        InputError(path: path, reason: "damaged \(format): the \(field)\(offset.map { " at byte \($0)" } ?? "") is \(value), \(rule)", kind: .damaged)
    }

    /// An unsigned field as a length, size, offset or count: `0...limit`.
    /// `bound` names the limit in the error (`the archive's size`).
    public func value(_ raw: UInt64, _ field: String, at offset: Int64?, limit: Int64 = .max, bound: String? = nil) throws(InputError) -> Int64 {
        guard raw <= UInt64(limit) else { throw error(field, at: offset, value: String(raw), Self.beyond(limit, bound)) }
        return Int64(raw)
    }

    /// Decimal digits (a pax record's length or `size`) as a value in `0...limit`: digits only,
    /// at least one; never more digits parsed than the limit needs.
    public func decimal(_ digits: some Collection<UInt8>, _ field: String, at offset: Int64?, limit: Int64 = .max, bound: String? = nil) throws(InputError) -> Int64 {
        guard !digits.isEmpty, digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
            throw error(field, at: offset, value: "'" + EscapedText.string(digits.prefix(24)) + "'", "not a decimal number")
        }
        var value: Int64 = 0
        for digit in digits {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow, !overflowSum, sum <= limit else {
                throw error(field, at: offset, value: digits.count > 24 ? "a \(digits.count)-digit number" : EscapedText.string(digits), Self.beyond(limit, bound))
            }
            value = sum
        }
        return value
    }

    /// `a + b` (an offset plus a length: where a field's data ends), within `0...limit`.
    public func sum(_ a: Int64, _ b: Int64, _ field: String, at offset: Int64?, limit: Int64 = .max, bound: String? = nil) throws(InputError) -> Int64 {
        let (total, overflow) = a.addingReportingOverflow(b)
        guard !overflow, total >= 0, total <= limit else {
            throw error(field, at: offset, value: "\(a) + \(b)", overflow || total > limit ? Self.beyond(limit, bound) : "negative")
        }
        return total
    }

    /// `value` rounded up to a multiple of `block` (tar's 512-byte blocks).
    public func roundedUp(_ value: Int64, toMultipleOf block: Int64, _ field: String, at offset: Int64?) throws(InputError) -> Int64 {
        let (padded, overflow) = value.addingReportingOverflow(block - 1)
        guard value >= 0, !overflow else { throw error(field, at: offset, value: String(value), "beyond any size once padded to \(block)-byte blocks") }
        return padded / block * block
    }

    /// `more than LIMIT (BOUND)`.
    static func beyond(_ limit: Int64, _ bound: String?) -> String {
        "more than \(limit)" + (bound.map { " (\($0))" } ?? "")
    }
}

/// Bytes shown in an error: printable ASCII as is, anything else as `\xNN`.
enum EscapedText {
    static func string(_ bytes: some Collection<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            if byte >= 0x20, byte < 0x7F { text.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                let digits = String(byte, radix: 16)
                text += "\\x" + (digits.count == 1 ? "0" : "") + digits
            }
        }
        return text
    }
}
