/// XXH64 (xxHash 64-bit): the region tables' payload checksum. Fast (several GB/s) and standard, so other languages can verify a table with their own xxhash library.
///
/// A straight port of the reference algorithm (xxhash.h, `XXH64`): 32-byte stripes into four
/// accumulators, then an 8/4/1-byte tail and the avalanche. Input words are read little-endian
/// from any alignment, so the digest is the same on every platform and equals, for example,
/// Python's `xxhash.xxh64_intdigest(data, seed)`.
package enum XXH64 {
    static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    /// The XXH64 digest of `bytes` with `seed`.
    package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else {
            return avalanche(seed &+ prime5)  // empty input: h = seed + P5 + 0, then avalanche
        }
        var offset = 0
        var h: UInt64

        if count >= 32 {
            var v1 = seed &+ prime1 &+ prime2
            var v2 = seed &+ prime2
            var v3 = seed
            var v4 = seed &- prime1
            let limit = count - 32
            repeat {
                v1 = round(v1, read64(base, offset))
                v2 = round(v2, read64(base, offset + 8))
                v3 = round(v3, read64(base, offset + 16))
                v4 = round(v4, read64(base, offset + 24))
                offset += 32
            } while offset <= limit
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = mergeRound(h, v1)
            h = mergeRound(h, v2)
            h = mergeRound(h, v3)
            h = mergeRound(h, v4)
        } else {
            h = seed &+ prime5
        }

        h &+= UInt64(truncatingIfNeeded: count)

        // Tail: at most 31 bytes left.
        while count - offset >= 8 {
            h ^= round(0, read64(base, offset))
            h = rotl(h, 27) &* prime1 &+ prime4
            offset += 8
        }
        if count - offset >= 4 {
            h ^= UInt64(read32(base, offset)) &* prime1
            h = rotl(h, 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            h ^= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) &* prime5
            h = rotl(h, 11) &* prime1
            offset += 1
        }
        return avalanche(h)
    }

    /// The XXH64 digest of `bytes` with `seed`.
    package static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    // MARK: - Building blocks (names as in xxhash.h)

    @inline(__always)
    static func read64(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    static func read32(_ base: UnsafeRawPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 {
        (x &<< r) | (x &>> (64 &- r))
    }

    /// XXH64_round: fold one 8-byte lane into an accumulator.
    @inline(__always)
    static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* prime2, 31) &* prime1
    }

    /// XXH64_mergeRound: fold one finished accumulator into the converged hash.
    @inline(__always)
    static func mergeRound(_ acc: UInt64, _ val: UInt64) -> UInt64 {
        (acc ^ round(0, val)) &* prime1 &+ prime4
    }

    /// XXH64_avalanche: final mix so every input bit affects every output bit.
    @inline(__always)
    static func avalanche(_ h0: UInt64) -> UInt64 {
        var h = h0
        h ^= h &>> 33
        h &*= prime2
        h ^= h &>> 29
        h &*= prime3
        h ^= h &>> 32
        return h
    }
}
