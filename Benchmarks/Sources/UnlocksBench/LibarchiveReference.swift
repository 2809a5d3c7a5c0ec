import CLibarchive
import Tracks

/// The libarchive path the CLI used before the intake's Swift containers (its GzipSource and
/// ZipArchive, reduced to reading every byte): the baseline of `UnlocksBench archives`, and
/// nothing else. Not linked by any run-time module (Scripts/check-layering).
enum LibarchiveReference {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Every decompressed byte of every file member of the archive at `path` (zip, tar, tgz, or
    /// a lone gzip stream as a raw "archive" of one member), counted.
    static func readAll(path: String, gzipOnly: Bool) throws -> Int64 {
        guard let archive = archive_read_new() else { throw Failure(description: "out of memory") }
        defer { archive_read_free(archive) }
        if gzipOnly {
            archive_read_support_filter_gzip(archive)
            archive_read_support_format_raw(archive)
        } else {
            archive_read_support_filter_gzip(archive)
            archive_read_support_format_zip(archive)
            archive_read_support_format_tar(archive)
        }
        guard archive_read_open_filename(archive, path, 1 << 16) == ARCHIVE_OK else {
            throw Failure(description: String(cString: archive_error_string(archive)))
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { return total }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN else { throw Failure(description: String(cString: archive_error_string(archive))) }
            while true {
                let n = archive_read_data(archive, buffer.baseAddress, buffer.count)
                if n < 0 { throw Failure(description: String(cString: archive_error_string(archive))) }
                if n == 0 { break }
                total += Int64(n)
            }
        }
    }
}
