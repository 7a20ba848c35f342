import CCairo
import WalletPass
import Support

/// Bounds on the pass images the renderer decodes. A PNG states its size in its header and a few
/// kilobytes of deflate can claim 50 000 × 50 000 pixels (10 GB decoded): the header is read and
/// checked against these before a single row is inflated.
package struct ImageLimits: Sendable, Equatable {
    /// Bytes of one PNG file.
    package var maxFileBytes = 4 * 1024 * 1024
    /// Width or height in pixels (Apple's largest image, a @3x strip, is 1125 wide).
    package var maxSide = 4096
    /// Pixels of one image (4 bytes each once decoded).
    package var maxPixels = 4 * 1024 * 1024
    /// Pixels of all images of one card together.
    package var maxTotalPixels = 8 * 1024 * 1024

    package init() {}
}

/// A pass image decoded by cairo's PNG reader, after its header passed `ImageLimits`.
/// Owns the cairo surface.
final class PassPicture {
    let surface: OpaquePointer
    let width: Int
    let height: Int
    let file: String

    private init(surface: OpaquePointer, width: Int, height: Int, file: String) {
        self.surface = surface
        self.width = width
        self.height = height
        self.file = file
    }

    deinit { cairo_surface_destroy(surface) }

    /// Decodes `image`, or says why not. `budget` is the pixel allowance left for this card.
    static func decode(_ image: PassImage, limits: ImageLimits, budget: inout Int) -> Result<PassPicture, RenderProblem> {
        guard image.bytes.count <= limits.maxFileBytes else {
            return .failure(.image(image.file, "is \(image.bytes.count) bytes, more than the \(limits.maxFileBytes) allowed"))
        }
        // PassImage's size comes from the IHDR chunk (CRC checked) — before any decoding.
        guard image.width <= limits.maxSide, image.height <= limits.maxSide, image.width * image.height <= limits.maxPixels else {
            return .failure(.image(image.file, "declares \(image.width) × \(image.height) pixels, more than a pass image may have"))
        }
        guard image.width * image.height <= budget else {
            return .failure(.image(image.file, "would exceed the pixel budget of the card's images"))
        }
        budget -= image.width * image.height
        let reader = ByteSource(image.bytes)
        let unmanaged = Unmanaged.passRetained(reader)
        defer { unmanaged.release() }
        guard let surface = cairo_image_surface_create_from_png_stream({ closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
            let source = Unmanaged<ByteSource>.fromOpaque(closure).takeUnretainedValue()
            return source.read(into: data, count: Int(length)) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_READ_ERROR
        }, unmanaged.toOpaque()) else {
            return .failure(.image(image.file, "could not be decoded"))
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            let why = String(cString: cairo_status_to_string(status))
            cairo_surface_destroy(surface)
            return .failure(.image(image.file, "is damaged (\(why))"))
        }
        let w = Int(cairo_image_surface_get_width(surface)), h = Int(cairo_image_surface_get_height(surface))
        // libpng decoded what the header said; a mismatch would mean the header lied after all.
        guard w == image.width, h == image.height else {
            cairo_surface_destroy(surface)
            return .failure(.image(image.file, "decodes to \(w) × \(h), not the \(image.width) × \(image.height) its header says"))
        }
        return .success(PassPicture(surface: surface, width: w, height: h, file: image.file))
    }

    /// Mean luminance 0…1 of the image (sampled), to pick text colours over a background image.
    var meanLuminance: Double {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return 1 }
        let stride = Int(cairo_image_surface_get_stride(surface))
        var sum = 0.0, n = 0.0
        let step = max(1, max(width, height) / 64)
        for y in Swift.stride(from: 0, to: height, by: step) {
            for x in Swift.stride(from: 0, to: width, by: step) {
                // ARGB32 in native (little-endian) order: B, G, R, A; premultiplied.
                let p = data + y * stride + x * 4
                let a = Double(p[3]) / 255
                let lum = (0.0722 * Double(p[0]) + 0.7152 * Double(p[1]) + 0.2126 * Double(p[2])) / 255
                sum += lum + (1 - a)  // transparent parts show white
                n += 1
            }
        }
        return n == 0 ? 1 : min(sum / n, 1)
    }
}

/// Feeds bytes to cairo's PNG reader.
private final class ByteSource {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into data: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        // A truncated file: libpng asks for more than there is; report a read error.
        guard count <= bytes.count - offset else { return false }
        bytes.withUnsafeBufferPointer { buffer in
            // offset + count <= bytes.count, checked above.
            data.update(from: buffer.baseAddress! + offset, count: count)
        }
        offset += count
        return true
    }
}

/// Why part of a card could not be drawn as the pass wanted.
package enum RenderProblem: Error, Equatable, CustomStringConvertible {
    case image(String, String)
    case output(String)

    package var description: String {
        switch self {
        case .image(let file, let why): return "\(file) \(why); the card is drawn without it"
        case .output(let why): return why
        }
    }
}

extension RenderProblem: ProblemReporting {
    package var problem: Problem {
        switch self {
        case .image: return Problem(.imageUnusable, message: description)
        case .output: return Problem(.renderFailed, message: "The pass could not be drawn.", detail: description)
        }
    }
}
