import Foundation
import XCTest
@testable import Intake
import Tracks
import Unlocks
import UnlocksTestSupport

/// Issue 26 items 3–5 and 22's containers: damage is reported (file, byte offset), never silently
/// read; what comes before the damage counts; archives are always listed. Expected counts are
/// computed by Python's gzip/zlib/zipfile in the test, not by the intake.
final class DamageTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws { folder = try temporaryDirectory() }

    func path(_ name: String) -> String { folder + "/" + name }

    func record(_ outcome: IntakeOutcome, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> InputRecord {
        try XCTUnwrap(IntakeHarness.records(outcome.ledger)[path(name)], "\(name) not listed: \(outcome.ledger.inputs.values.map(\.path))", file: file, line: line)
    }

    /// A flipped byte in the CRC-32 or the length (gzip -t refuses both): rejected, nothing of it
    /// counted, the error naming the trailer's byte offset. (libarchive read it: exit 0, and a
    /// flipped data byte unlocked Anhui.)
    func testGzipChecksumAndLengthAreChecked() throws {
        let size = try IntakeHarness.python(IntakeHarness.csvWalk + """
        import gzip
        data = gzip.compress(walk(500), mtime=0)
        crc = bytearray(data); crc[-8] ^= 1; open("crc.csv.gz", "wb").write(crc)
        length = bytearray(data); length[-2] ^= 1; open("length.csv.gz", "wb").write(length)
        print(len(data))
        """, in: folder)
        let trailer = Int(size.trimmingCharacters(in: .whitespacesAndNewlines))! - 8
        let outcome = try IntakeHarness.run([.path(path("crc.csv.gz")), .path(path("length.csv.gz"))])
        for name in ["crc.csv.gz", "length.csv.gz"] {
            let input = try record(outcome, name)
            XCTAssertEqual(input.status, .rejected, name)
            XCTAssertEqual(input.pointsRead, 0, name)
            XCTAssertTrue(input.error?.contains("nothing of it is counted") == true, input.error ?? "")
        }
        let crc = try record(outcome, "crc.csv.gz").error ?? ""
        XCTAssertTrue(crc.contains("at byte \(trailer)"), crc)
        XCTAssertEqual(outcome.failedInputs, 2)
        XCTAssertTrue(outcome.ledger.contributions.isEmpty)
    }

    /// A truncated gzip keeps every complete line before the cut (Python's zlib counts them from
    /// the same cut bytes); the input is partial and its error names the byte. With only the
    /// trailer cut, every point is kept and the error says the trailer is missing.
    func testTruncatedGzipKeepsEveryCompleteLine() throws {
        let counts = try IntakeHarness.python(IntakeHarness.csvWalk + """
        import gzip, zlib
        data = gzip.compress(walk(20000), mtime=0)
        open("trailer.csv.gz", "wb").write(data[:-8])
        half = data[:len(data) // 2]
        open("half.csv.gz", "wb").write(half)
        out = zlib.decompressobj(16 + 15).decompress(half)
        print(20000, out.count(b"\\n") - 1, len(half))
        """, in: folder).split(separator: " ").map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines))! }
        var messages: [String] = []
        let outcome = try IntakeHarness.run([.path(path("trailer.csv.gz")), .path(path("half.csv.gz"))], messages: &messages)
        let trailer = try record(outcome, "trailer.csv.gz"), half = try record(outcome, "half.csv.gz")
        XCTAssertEqual(trailer.status, .partial)
        XCTAssertEqual(trailer.pointsRead, Int64(counts[0]))
        XCTAssertTrue(trailer.error?.contains("trailer (CRC-32 and length) is missing") == true, trailer.error ?? "")
        XCTAssertEqual(half.status, .partial)
        XCTAssertEqual(half.pointsRead, Int64(counts[1]), "every complete line before the cut")
        XCTAssertTrue(half.error?.contains("truncated at compressed byte \(counts[2])") == true, half.error ?? "")
        XCTAssertEqual(outcome.failedInputs, 2)
        XCTAssertTrue(messages.contains { $0.hasPrefix(path("half.csv.gz") + ":") }, "\(messages)")
    }

    /// A zip whose central directory is gone (cut off) or damaged: its members are recovered from
    /// their local headers and read, the archive listed as partial with what was wrong; a valid
    /// empty zip named by the caller is listed. (libarchive counted the first as empty: not
    /// listed, nothing said, its track lost; the empty zip was not listed either.)
    func testDamagedCentralDirectoryIsRecoveredAndEmptyZipListed() throws {
        let points = try IntakeHarness.python(IntakeHarness.csvWalk + """
        import zipfile, io
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("a.csv", walk(821))
            z.writestr("b.csv", walk(300, lat=39.95))
        data = buffer.getvalue()
        directory = data.rindex(b"PK\\x01\\x02")
        open("cut.zip", "wb").write(data[:data.index(b"PK\\x01\\x02")])
        damaged = bytearray(data); damaged[directory + 1] ^= 0xFF; open("damaged.zip", "wb").write(damaged)
        zipfile.ZipFile("empty.zip", "w").close()
        print(821 + 300)
        """, in: folder)
        let outcome = try IntakeHarness.run([.path(path("cut.zip")), .path(path("damaged.zip")), .path(path("empty.zip"))])
        for name in ["cut.zip", "damaged.zip"] {
            let archive = try record(outcome, name)
            XCTAssertEqual(archive.status, .partial, name)
            XCTAssertTrue(archive.error?.contains("2 entries recovered from their local headers") == true, archive.error ?? "")
            let members = outcome.ledger.inputs.values.filter { $0.path.hasPrefix(path(name) + ":") }
            XCTAssertEqual(members.count, 2, name)
            if name == "cut.zip" {
                XCTAssertEqual(members.map(\.pointsRead).reduce(0, +), Int64(points.trimmingCharacters(in: .whitespacesAndNewlines))!, name)
            } else {
                // The same members' bytes as cut.zip's: copies, listed as its members' duplicates
                // (docs/report-format.md, "Copies", wherever the bytes sit).
                XCTAssertEqual(Set(members.compactMap(\.duplicateOf)), [path("cut.zip") + ":a.csv", path("cut.zip") + ":b.csv"], name)
            }
        }
        XCTAssertTrue(try record(outcome, "cut.zip").error!.contains("no end of central directory record"))
        XCTAssertTrue(try record(outcome, "damaged.zip").error!.contains("is not one"))
        let empty = try record(outcome, "empty.zip")
        XCTAssertEqual(empty.status, .skipped)
        XCTAssertEqual(empty.skipReason?.description, "empty archive (no files in it)")
    }

    /// A tar whose third header fails its checksum: the members before it are read, the archive
    /// listed with the damage and its byte offset (the third header's, from Python's tarfile).
    func testDamagedTarHeaderStopsTheWalkAfterWhatCameBefore() throws {
        let offset = try IntakeHarness.python(IntakeHarness.csvWalk + """
        import tarfile, io
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as t:
            for name, n in [("a.csv", 100), ("b.csv", 50), ("c.csv", 70)]:
                data = walk(n); info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data))
        data = bytearray(buffer.getvalue())
        with tarfile.open(fileobj=io.BytesIO(bytes(data))) as t:
            third = t.getmembers()[2].offset
        data[third + 10] ^= 0x11
        open("damaged.tar", "wb").write(data)
        print(third)
        """, in: folder)
        let outcome = try IntakeHarness.run([.path(path("damaged.tar"))])
        let records = IntakeHarness.records(outcome.ledger)
        XCTAssertEqual(records[path("damaged.tar:a.csv")]?.pointsRead, 100)
        XCTAssertEqual(records[path("damaged.tar:b.csv")]?.pointsRead, 50)
        XCTAssertNil(records[path("damaged.tar:c.csv")])
        let archive = try record(outcome, "damaged.tar")
        XCTAssertEqual(archive.status, .partial)
        XCTAssertTrue(archive.error?.contains("header at byte \(offset.trimmingCharacters(in: .whitespacesAndNewlines)) fails its checksum") == true, archive.error ?? "")
    }

    /// The bomb limits: past 64 MiB of output, at most 200 times the compressed bytes (a gzip of
    /// zeros is refused once past 64 MiB; below the absolute threshold any ratio is read).
    func testDecompressionBombLimits() throws {
        _ = try IntakeHarness.python("""
        import gzip
        open("bomb.gz", "wb").write(gzip.compress(bytes(80 << 20), 9, mtime=0))
        open("small.gz", "wb").write(gzip.compress(bytes(60 << 20), 9, mtime=0))
        """, in: folder)
        XCTAssertEqual(try ContainerTests.readAll(try GzipStream(wrapping: try FileSource(path: path("small.gz")), path: "small.gz"), chunk: 1 << 20).count, 60 << 20)
        XCTAssertThrowsError(try ContainerTests.readAll(try GzipStream(wrapping: try FileSource(path: path("bomb.gz")), path: "bomb.gz"), chunk: 1 << 20)) { error in
            XCTAssertEqual((error as? InputError)?.kind, .decompressionBomb, "\(error)")
        }
    }
}
