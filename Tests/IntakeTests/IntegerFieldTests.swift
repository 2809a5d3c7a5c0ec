import Foundation
import XCTest
@testable import Intake
import TrackFuzzing
import Tracks
import Unlocks
import UnlocksTestSupport

/// Issue 35, item 1: 64-bit fields of small crafted archives trapped before any range check.
/// Each archive here is built by Python's struct, tarfile and zipfile in the test, from the
/// attack's description; each must end as a damaged-archive error naming the file and the byte
/// of the field, with the archive's other members (and the other inputs of the run) read.
final class IntegerFieldTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws { folder = try temporaryDirectory() }

    func path(_ name: String) -> String { folder + "/" + name }

    /// A tar helper for Python: members `a.csv` (100 points) and `b.csv` (50) around `extra`.
    static let tarHelpers = IntakeHarness.csvWalk + """
    import struct, zlib, gzip, io, zipfile
    def header(name, size_field, typ=b"0"):
        h = bytearray(512)
        h[0:len(name)] = name
        h[100:108] = b"0000644\\0"; h[108:116] = b"0000000\\0"; h[116:124] = b"0000000\\0"
        h[124:136] = size_field; h[136:148] = b"00000000000\\0"; h[156:157] = typ
        h[257:263] = b"ustar\\0"; h[263:265] = b"00"; h[148:156] = b" " * 8
        h[148:156] = ("%06o\\0 " % sum(h)).encode()
        return bytes(h)
    def member(name, data, typ=b"0"):
        return header(name, ("%011o\\0" % len(data)).encode(), typ) + data + b"\\0" * ((512 - len(data) % 512) % 512)
    def tar(extra):
        return member(b"a.csv", walk(100)) + extra + member(b"b.csv", walk(50)) + b"\\0" * 1024

    """

    /// The records of `names`' members and the archives themselves, each archive read in a run of
    /// its own: their members repeat the same walk, and a byte-identical copy is read only once.
    func outcome(_ names: [String]) throws -> (records: [String: InputRecord], messages: [String]) {
        var records: [String: InputRecord] = [:]
        var messages: [String] = []
        for name in names {
            var said: [String] = []
            let outcome = try IntakeHarness.run([.path(path(name))], messages: &said)
            messages += said
            records.merge(IntakeHarness.records(outcome.ledger)) { first, _ in first }
        }
        return (records, messages)
    }

    func assertDamage(_ records: [String: InputRecord], _ archive: String, contains expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        guard let record = records[path(archive)] else { return XCTFail("\(archive) not listed: \(records.keys.sorted())", file: file, line: line) }
        let error = record.error ?? ""
        for text in expected { XCTAssertTrue(error.contains(text), "\(archive): \(error)", file: file, line: line) }
    }

    /// pax records of length 1 (`1 x\n`, which trapped "Range requires lowerBound <= upperBound")
    /// and of length 2^63−1 (which overflowed), a pax `size` of 2^63−1 and a GNU base-256 size
    /// near 2^63 (which overflowed the rounding to 512-byte blocks): in a .tar, a .tgz (Google
    /// Takeout's format) and a tar inside a zip. The members before the damage are read.
    func testTarFieldsNearTwoToTheSixtyThreeAreDamageNamingTheByte() throws {
        let offsets = try IntakeHarness.python(Self.tarHelpers + """
        short = member(b"pax", b"1 x\\n", b"x")
        open("short.tar", "wb").write(tar(short))
        open("short.tgz", "wb").write(gzip.compress(tar(short), mtime=0))
        open("long.tar", "wb").write(tar(member(b"pax", b"9223372036854775807 path=x\\n", b"x")))
        open("size.tar", "wb").write(tar(member(b"pax", b"28 size=9223372036854775807\\n", b"x") + member(b"c.csv", walk(10))))
        base256 = bytes([0x80, 0, 0, 0]) + (2**63 - 300).to_bytes(8, "big")
        open("base256.tar", "wb").write(member(b"a.csv", walk(100)) + header(b"c.csv", base256) + b"\\0" * 1024)
        z = io.BytesIO()
        with zipfile.ZipFile(z, "w") as f:
            f.writestr("first.csv", walk(30)); f.writestr("inner.tar", tar(short)); f.writestr("last.csv", walk(40))
        open("tar-in-zip.zip", "wb").write(z.getvalue())
        # The pax header's data starts after a.csv's header and 10 blocks of data, and its own header.
        print(len(member(b"a.csv", walk(100))) + 512, len(member(b"a.csv", walk(100))))
        """, in: folder).split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        let (records, messages) = try outcome(["short.tar", "short.tgz", "long.tar", "size.tar", "base256.tar", "tar-in-zip.zip"])
        for archive in ["short.tar", "short.tgz", "long.tar", "size.tar", "base256.tar"] {
            XCTAssertEqual(records[path(archive + ":a.csv")]?.pointsRead, 100, archive)
            XCTAssertEqual(records[path(archive)]?.status, .partial, archive)
        }
        assertDamage(records, "short.tar", contains: ["damaged tar archive", "pax record at byte \(offsets[0])", "'1 x\\x0A'"])
        assertDamage(records, "short.tgz", contains: ["pax record at byte \(offsets[0])"])
        assertDamage(records, "long.tar", contains: ["pax record's length at byte \(offsets[0]) is 9223372036854775807"])
        assertDamage(records, "size.tar", contains: ["size in the header at byte", "9223372036854775807"])
        assertDamage(records, "base256.tar", contains: ["size in the header at byte \(offsets[1]) is 9223372036854775508"])
        // Inside a zip: the zip's other members are read, the tar named as `zip:member`.
        XCTAssertEqual(records[path("tar-in-zip.zip:first.csv")]?.pointsRead, 30)
        XCTAssertEqual(records[path("tar-in-zip.zip:last.csv")]?.pointsRead, 40)
        XCTAssertEqual(records[path("tar-in-zip.zip:inner.tar:a.csv")]?.pointsRead, 100)
        assertDamage(records, "tar-in-zip.zip:inner.tar", contains: ["pax record at byte \(offsets[0])"])
        XCTAssertTrue(messages.contains { $0.contains(path("short.tar")) }, "\(messages)")
    }

    /// Five ~4 KB zips whose zip64 fields are near 2^63 (local header offset, compressed size,
    /// central directory size and offset, end record offset) and a zip inside a zip whose local
    /// header's zip64 compressed size is 0xFFFF…FFFF (Garmin's export layout), which also
    /// trapped in the recovery of a cut download: each named with the field's byte offset, its
    /// member recovered from the local header where the central directory cannot be used.
    func testZip64FieldsNearTwoToTheSixtyFourAreDamageNamingTheByte() throws {
        let printed = try IntakeHarness.python(IntakeHarness.csvWalk + """
        import struct, zlib, io, zipfile
        data, name = walk(100), b"a.csv"
        crc = zlib.crc32(data)
        def archive(local_offset=0, csize=None, cd_offset=None, cd_size=None, rec_offset=None):
            local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 0, 0, 0, crc, len(data), len(data), len(name), 0) + name + data
            extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data) if csize is None else csize, local_offset)
            cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0, 0, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra), 0, 0, 0, 0, 0xFFFFFFFF) + name + extra
            z64 = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, 1, 1, len(cd) if cd_size is None else cd_size, len(local) if cd_offset is None else cd_offset)
            rec = len(local) + len(cd)
            loc = struct.pack("<IIQI", 0x07064b50, 0, rec if rec_offset is None else rec_offset, 1)
            end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
            # Byte offsets of the fields: the extra's three values, the record's size and offset, the locator's offset.
            fields = [len(local) + 46 + len(name) + 4 + 8 * i for i in range(3)] + [rec + 40, rec + 48, rec + 56 + 8]
            return local + cd + z64 + loc + end, fields
        big = 2**63 - 10
        made = {}
        for label, kwargs in [("offset", dict(local_offset=big)), ("csize", dict(csize=big)), ("cdsize", dict(cd_size=big)),
                              ("cdoffset", dict(cd_offset=big)), ("recoffset", dict(rec_offset=big))]:
            bytes_, fields = archive(**kwargs)
            open("zip64-%s.zip" % label, "wb").write(bytes_)
            made[label] = fields
        ok, _ = archive()
        open("zip64-ok.zip", "wb").write(ok)
        deflated = zlib.compress(data)[2:-4]
        extra = struct.pack("<HHQQ", 1, 16, len(data), 2**64 - 1)
        inner = struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 8, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra)) + name + extra + deflated
        z = io.BytesIO()
        with zipfile.ZipFile(z, "w") as f:
            f.writestr("first.csv", walk(30)); f.writestr("inner.zip", inner); f.writestr("last.csv", walk(40))
        open("zip-in-zip.zip", "wb").write(z.getvalue())
        open("cut.zip", "wb").write(inner)
        print(made["offset"][2], made["csize"][1], made["cdsize"][3], made["cdoffset"][4], made["recoffset"][5], 30 + len(name) + 4 + 8)
        """, in: folder).split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        let names = ["zip64-ok.zip", "zip64-offset.zip", "zip64-csize.zip", "zip64-cdsize.zip", "zip64-cdoffset.zip", "zip64-recoffset.zip", "zip-in-zip.zip", "cut.zip"]
        let (records, _) = try outcome(names)
        XCTAssertEqual(records[path("zip64-ok.zip:a.csv")]?.pointsRead, 100)
        XCTAssertNil(records[path("zip64-ok.zip")]?.error)
        let expected = [("offset", "zip64 local header offset at byte \(printed[0]) is 9223372036854775798"),
                        ("csize", "zip64 compressed size at byte \(printed[1]) is 9223372036854775798"),
                        ("cdsize", "zip64 central directory size at byte \(printed[2]) is 9223372036854775798"),
                        ("cdoffset", "zip64 central directory offset at byte \(printed[3]) is 9223372036854775798"),
                        ("recoffset", "zip64 end record's offset at byte \(printed[4]) is 9223372036854775798")]
        for (label, text) in expected {
            assertDamage(records, "zip64-\(label).zip", contains: ["damaged zip archive", text, "recovered from their local headers"])
            // The member is still read, from its local header.
            XCTAssertEqual(records[path("zip64-\(label).zip:a.csv")]?.pointsRead, 100, label)
        }
        XCTAssertEqual(records[path("zip-in-zip.zip:first.csv")]?.pointsRead, 30)
        XCTAssertEqual(records[path("zip-in-zip.zip:last.csv")]?.pointsRead, 40)
        assertDamage(records, "zip-in-zip.zip:inner.zip", contains: ["zip64 compressed size at byte \(printed[5]) is 18446744073709551615"])
        assertDamage(records, "cut.zip", contains: ["zip64 compressed size at byte \(printed[5]) is 18446744073709551615"])
    }

    /// The fuzzer's finder itself (TrackFuzzing.IntegerFields): it finds the fields of each
    /// container and binary format, writes each boundary at the field's width, and redoes a tar
    /// header's checksum, so the value reaches the size arithmetic rather than the checksum.
    func testTheFuzzersFinderFindsTheFieldsAndKeepsTarChecksums() throws {
        let archives = ContainerTests.fixtures
        let tar = Array(try Data(contentsOf: URL(fileURLWithPath: archives + "/pax.tar")))
        let sizes = IntegerFields.fields(in: tar).filter { $0.name == "tar size" }
        XCTAssertGreaterThanOrEqual(sizes.count, 2)
        XCTAssertTrue(IntegerFields.fields(in: tar).contains { $0.name == "pax record length" })
        for value in IntegerFields.boundaries {
            var bytes = tar
            IntegerFields.write(value, into: sizes[0], of: &bytes)
            let header = Array(bytes[(sizes[0].offset - 124)..<(sizes[0].offset - 124 + 512)])
            XCTAssertTrue(TarArchive.checksumHolds(header), "\(value)")
            XCTAssertEqual(TarArchive.number(header[124..<136]).map(UInt64.init), value > UInt64(Int64.max >> 8) ? nil : value, "\(value)")
        }
        let zip = Array(try Data(contentsOf: URL(fileURLWithPath: archives + "/infozip-zip64.zip")))
        let names = Set(IntegerFields.fields(in: zip).map(\.name))
        for name in ["zip local compressed size", "zip central local header offset", "zip end directory offset", "zip64 end directory size", "zip64 locator offset"] {
            XCTAssertTrue(names.contains(name), "\(name) not found in \(names.sorted())")
        }
        var bytes = zip
        let field = try XCTUnwrap(IntegerFields.fields(in: zip).first { $0.name == "zip64 end directory size" })
        IntegerFields.write(.max, into: field, of: &bytes)
        XCTAssertEqual(Array(bytes[field.offset..<(field.offset + 8)]), [UInt8](repeating: 0xFF, count: 8))
        IntegerFields.write(1 << 31, into: field, of: &bytes)
        XCTAssertEqual(Array(bytes[field.offset..<(field.offset + 8)]), [0, 0, 0, 0x80, 0, 0, 0, 0])
        let fit = Array(try Data(contentsOf: URL(fileURLWithPath: Repository.fixtures("TracksTests") + "/fit/garmin-fenix-5-run.fit")))
        XCTAssertEqual(IntegerFields.fields(in: fit).map(\.name), ["FIT data size"])
    }

    /// Every length, size, offset and count field of every archive fixture (IntegerFields, the
    /// fuzzer's finder) set to each boundary value (0, 1, 2^31, 2^32, 2^63−1, 2^64−1), each
    /// through the containers in-process, from a file and as a stream: every walk ends by its end
    /// or an InputError, never a trap.
    func testEveryFieldOfEveryArchiveAtEveryBoundaryEndsWithoutATrap() throws {
        let fixtures = ContainerTests.fixtures
        var walks = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: fixtures).sorted() where !name.hasSuffix(".json") && !name.hasSuffix(".md") {
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name)))
            let gzipped = name.hasSuffix(".tgz") || name.hasSuffix(".gz")
            let plain = gzipped ? try ContainerTests.readAll(try GzipStream(wrapping: MemorySource(original), path: name)) : original
            // The fields of the archive, and of its gzip layer (written into the compressed bytes).
            let fields = IntegerFields.fields(in: plain).map { ($0, false) } + (gzipped ? IntegerFields.fields(in: original).filter { $0.name.hasPrefix("gzip") }.map { ($0, true) } : [])
            XCTAssertFalse(fields.isEmpty, "no integer field found in \(name)")
            for (field, inGzip) in fields {
                for value in IntegerFields.boundaries {
                    var bytes = inGzip ? original : plain
                    IntegerFields.write(value, into: field, of: &bytes)
                    let label = "\(name) \(field.name)@\(field.offset)=\(value)"
                    walks += 1
                    if name.hasSuffix(".zip") || name.hasSuffix(".kmz") {
                        ContainerFuzzTests.drain { .zip(ZipArchive(random: RandomAccessMemory(bytes), path: label)) }
                        ContainerFuzzTests.drain { .zip(ZipArchive(streaming: MemorySource(bytes), path: label)) }
                    } else if inGzip {
                        do { _ = try ContainerTests.readAll(try GzipStream(wrapping: MemorySource(bytes), path: label)) } catch is InputError {}
                    } else if name.hasSuffix(".tar") || name.hasSuffix(".tgz") {
                        ContainerFuzzTests.drain { .tar(TarArchive(streaming: MemorySource(bytes), path: label)) }
                    }
                }
            }
        }
        XCTAssertGreaterThan(walks, 500)
    }
}
