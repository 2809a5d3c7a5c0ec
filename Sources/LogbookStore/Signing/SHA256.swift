/// SHA-256 (FIPS 180-4), for signing a logbook's key figures with HMAC-SHA256 on every platform
/// (CryptoKit is Apple's only, and the run-time links no crypto library). Streaming: ``update(_:)``
/// any number of times, then ``finish()``.
package struct SHA256 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    package static let blockSize = 64

    package init() { pending.reserveCapacity(64) }

    /// The digest of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finish()
    }

    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            update(buffer)
            return true
        }
        if done == true { return }
        for byte in bytes {
            pending.append(byte)
            length &+= 1
            if pending.count == 64 {
                pending.withUnsafeBufferPointer { compress($0) }
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Whole blocks straight from the buffer; only a remainder is copied.
    private mutating func update(_ buffer: UnsafeBufferPointer<UInt8>) {
        var start = 0
        length &+= UInt64(buffer.count)
        if !pending.isEmpty {
            let take = min(64 - pending.count, buffer.count)
            pending += buffer[0..<take]
            start = take
            guard pending.count == 64 else { return }
            pending.withUnsafeBufferPointer { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        while buffer.count - start >= 64 {
            compress(UnsafeBufferPointer(rebasing: buffer[start..<(start + 64)]))
            start += 64
        }
        pending += buffer[start...]
    }

    package mutating func finish() -> [UInt8] {
        let bits = length &* 8
        pending.append(0x80)
        if pending.count > 56 {
            pending += [UInt8](repeating: 0, count: 64 - pending.count)
            pending.withUnsafeBufferPointer { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        pending += [UInt8](repeating: 0, count: 56 - pending.count)
        for shift in stride(from: 56, through: 0, by: -8) { pending.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        pending.withUnsafeBufferPointer { compress($0) }
        pending.removeAll()
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            digest += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        return digest
    }

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            compress(block, schedule: w)
        }
    }

    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>, schedule w: UnsafeMutableBufferPointer<UInt32>) {
        @inline(__always) func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        for i in 0..<16 {
            w[i] = UInt32(block[4 * i]) << 24 | UInt32(block[4 * i + 1]) << 16 | UInt32(block[4 * i + 2]) << 8 | UInt32(block[4 * i + 3])
        }
        for i in 16..<64 {
            let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state
        for i in 0..<64 {
            let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ choice &+ Self.k[i] &+ w[i]
            let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }
}

/// HMAC-SHA256 (RFC 2104, test vectors of RFC 4231): a keyed digest that only a holder of the
/// key can make, so a logbook's figures changed without it are told from genuine ones.
package struct HMACSHA256 {
    private var inner = SHA256()
    private let outerKey: [UInt8]

    package init(key: [UInt8]) {
        var block = key.count > SHA256.blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: SHA256.blockSize - block.count)
        inner.update(block.map { $0 ^ 0x36 })
        outerKey = block.map { $0 ^ 0x5c }
    }

    package static func authenticationCode(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        mac.update(message)
        return mac.finish()
    }

    package mutating func update(_ bytes: some Sequence<UInt8>) { inner.update(bytes) }

    package mutating func finish() -> [UInt8] {
        var outer = SHA256()
        outer.update(outerKey)
        outer.update(inner.finish())
        return outer.finish()
    }
}
