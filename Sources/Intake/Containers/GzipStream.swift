import Tracks

/// The decompressed bytes of a gzip stream (RFC 1952), inflated as they are read: nothing is
/// unpacked to disk and memory stays constant.
///
/// Rules (docs/input-formats.md, "Compressed files and archives"):
/// - Concatenated members read as one stream; zero bytes after the last member (tar's padding)
///   are ignored, anything else after it is damage.
/// - Each member's CRC-32 and length (its 8-byte trailer) are checked: a mismatch throws an
///   ``InputError`` of kind ``InputError/Kind/checksumMismatch`` (the damage may be anywhere in
///   the data, so callers drop the whole input).
/// - A stream cut short (kind `truncated`) or damaged (kind `damaged`) throws only after every
///   byte decoded before the damage was delivered, so a line-based reader keeps every complete
///   line; the error names the compressed byte offset. A member whose data is whole but whose
///   trailer is missing says so.
/// - ``DecompressionLimits`` hold against the compressed bytes read.
public final class GzipStream: ByteSource {
    /// The name used in errors (for a `.gz` inside a zip: `archive.zip:entry.gpx.gz`).
    public let path: String
    private let input: InputBuffer
    private let inflater = Inflater()
    private var total: Int64 = 0
    private var pending: InputError?
    private var finished = false
    private var inMember = false

    /// Decompresses the bytes `source` yields; `path` names them in errors. Throws when the
    /// stream does not begin with a gzip header.
    public init(wrapping source: some ByteSource, path: String) throws {
        self.path = path
        input = InputBuffer(source)
        guard try input.fill(atLeast: 2), input[0] == 0x1F, input[1] == 0x8B else {
            throw InputError(path: path, reason: "not gzip data (no gzip header)", kind: .damaged)
        }
        try beginMember()
    }

    /// Reads a member's header (RFC 1952 2.3).
    private func beginMember() throws {
        let at = input.offset
        guard try input.fill(atLeast: 10) else { throw truncated("in the gzip header at byte \(at)") }
        guard input[0] == 0x1F, input[1] == 0x8B else { throw damaged("no gzip header at byte \(at)") }
        guard input[2] == 8 else { throw damaged("compression method \(input[2]) at byte \(at + 2) is not deflate") }
        let flags = input[3]
        guard flags & 0xE0 == 0 else { throw damaged("reserved header flags set at byte \(at + 3)") }
        input.consume(10)
        if flags & 0x04 != 0 {  // FEXTRA
            guard try input.fill(atLeast: 2) else { throw truncated("in the gzip header") }
            let length = Int64(input.uint16(at: 0))
            input.consume(2)
            guard try input.skip(length) else { throw truncated("in the gzip header") }
        }
        for flag: UInt8 in [0x08, 0x10] where flags & flag != 0 {  // FNAME, FCOMMENT: zero-terminated
            while true {
                guard try input.fill() else { throw truncated("in the gzip header") }
                if let zero = input.available.firstIndex(of: 0) {
                    input.consume(zero + 1)
                    break
                }
                input.consume(input.count)
            }
        }
        if flags & 0x02 != 0 {  // FHCRC
            guard try input.skip(2) else { throw truncated("in the gzip header") }
        }
        inflater.reset()
        inMember = true
    }

    private func truncated(_ where: String) -> InputError {
        InputError(path: path, reason: "gzip stream truncated \(`where`) (after \(total) decompressed bytes)", kind: .truncated)
    }

    private func damaged(_ what: String) -> InputError {
        InputError(path: path, reason: "damaged gzip stream: \(what) (after \(total) decompressed bytes)", kind: .damaged)
    }

    /// Fills `buffer` with decompressed bytes; 0 at the end of the stream.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let pending {
            self.pending = nil
            finished = true
            throw pending
        }
        guard !finished, buffer.count > 0 else { return 0 }
        while true {
            if inMember {
                let made: Int
                do {
                    made = try inflater.inflate(from: input, into: buffer)
                } catch .truncated {
                    finished = true
                    throw truncated("at compressed byte \(input.offset)")
                } catch let .damaged(message) {
                    finished = true
                    throw damaged("\(message) at compressed byte \(input.offset)")
                }
                total += Int64(made)
                if let bomb = DecompressionLimits.check(output: total, input: input.offset, path: path) {
                    finished = true
                    throw bomb
                }
                if inflater.ended {
                    inMember = false
                    // The trailer is checked before this member's last bytes are handed over: a
                    // mismatch drops the input whole, so nothing of it may be counted first.
                    if let problem = try endMember() {
                        if problem.kind == .checksumMismatch { finished = true; throw problem }
                        if made > 0 { pending = problem; return made }
                        finished = true
                        throw problem
                    }
                }
                if made > 0 { return made }
                if inMember { continue }
            }
            // Between members: another member, zero padding, or the end.
            guard try input.fill() else {
                finished = true
                return 0
            }
            if input[0] == 0x1F {
                try beginMember()
                continue
            }
            while try input.fill() {
                guard input.available.allSatisfy({ $0 == 0 }) else {
                    finished = true
                    throw damaged("\(input.count) bytes after the gzip stream at byte \(input.offset) are not a gzip member")
                }
                input.consume(input.count)
            }
            finished = true
            return 0
        }
    }

    /// Checks the member's trailer: CRC-32, then the length modulo 2^32.
    private func endMember() throws -> InputError? {
        let at = input.offset
        guard try input.fill(atLeast: 8) else {
            return InputError(path: path, reason: "gzip stream truncated at byte \(at + Int64(input.count)): its trailer (CRC-32 and length) is missing, "
                              + "so its \(total) decompressed bytes cannot be checked", kind: .truncated)
        }
        let crc = input.uint32(at: 0), size = input.uint32(at: 4)
        input.consume(8)
        if crc != inflater.crc {
            return InputError(path: path, reason: "damaged gzip stream: the CRC-32 of the data (\(hex(inflater.crc))) is not the trailer's "
                              + "(\(hex(crc)) at byte \(at)); nothing of it is counted", kind: .checksumMismatch)
        }
        if size != UInt32(truncatingIfNeeded: inflater.produced) {
            return InputError(path: path, reason: "damaged gzip stream: \(inflater.produced) bytes decompressed, the trailer at byte \(at + 4) "
                              + "says \(size); nothing of it is counted", kind: .checksumMismatch)
        }
        return nil
    }
}

/// `0x1234abcd`.
func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
