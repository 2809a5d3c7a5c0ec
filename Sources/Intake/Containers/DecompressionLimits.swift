import Tracks

/// Limits that keep a hostile archive from running away with time or disk (memory is constant
/// anyway: everything streams).
public enum DecompressionLimits {
    /// Output below this many bytes is never questioned (the absolute part of the rule).
    public static var freeBytes: Int64 { 64 << 20 }
    /// Past ``freeBytes``, output may be at most this many times the compressed bytes read.
    /// Real tracks compress 5–20:1 (a 200 MB GPX gzips 8.4:1, a CSV 5:1), so 200:1 leaves a
    /// tenfold margin; deflate's own ceiling is about 1032:1, so a rule at 1000:1 would stop only
    /// all-zero streams, while a crafted stream of repeated records sits between the two.
    public static var maximumRatio: Int64 { 200 }

    /// The error when `output` bytes came out of `input` compressed bytes, or nil when fine.
    static func check(output: Int64, input: Int64, path: String, what: String = "decompresses") -> InputError? {
        guard output > freeBytes, output > maximumRatio * max(input, 1) else { return nil }
        return InputError(path: path, reason: "\(what) to more than \(maximumRatio) times its compressed size "
                          + "(\(output) bytes from \(input)): refused as a decompression bomb", kind: .decompressionBomb)
    }
}
