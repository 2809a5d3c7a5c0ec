import CRsvg

/// The footprint card as a PNG: the story card's SVG (``Footprint/storyCard()``) drawn by
/// librsvg into a cairo image at its own size, 1080 × 1920. librsvg (GNOME's SVG renderer,
/// Debian's librsvg2) is what image viewers and converters on Linux draw SVG with; the card uses
/// nothing it lacks (paths, text, a clip path). Why linked rather than `rsvg-convert` run:
/// docs/footprint-format.md, "footprint-card.png".
enum CardImage {
    /// Why an SVG could not be drawn.
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "the card could not be drawn as PNG: \(reason)" }
    }

    /// `svg` drawn at `width` × `height` pixels (its viewBox scaled to fit), as PNG bytes.
    static func png(svg: String, width: Int, height: Int) throws -> [UInt8] {
        var bytes = Array(svg.utf8)
        var error: UnsafeMutablePointer<GError>?
        guard let handle = bytes.withUnsafeMutableBufferPointer({ rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }) else {
            throw Failure(reason: message(error))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else { throw Failure(reason: "no image surface") }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let context = cairo_create(surface) else {
            throw Failure(reason: "no image of \(width) × \(height)")
        }
        defer { cairo_destroy(context) }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(width), height: Double(height))
        guard rsvg_handle_render_document(handle, context, &viewport, &error) != 0 else { throw Failure(reason: message(error)) }
        cairo_surface_flush(surface)
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(surface, { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().bytes += UnsafeBufferPointer(start: data, count: Int(length))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else { throw Failure(reason: String(cString: cairo_status_to_string(status))) }
        return sink.bytes
    }

    /// The PNG's bytes as cairo writes them.
    private final class Sink {
        var bytes: [UInt8] = []
    }

    /// A GError's message (and frees it).
    private static func message(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "librsvg gave no reason" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
