import Conduit
import Foundation
import PassRender

/// `scan --render DIR`: each pass found with a readable pass.json is drawn as DIR/<sha256>.png
/// (2×, front), so a chat bridge can post the picture beside the JSON.
enum ScanRender {
    static func draw(_ found: FoundPass, into directory: String, context: Context, barcode: Bool = true) -> String? {
        guard let info = found.verdict.pass else { return nil }
        let pass = RenderSource(verdict: found.verdict, info: info, name: found.source.filename ?? found.source.input)
        let path = (directory as NSString).appendingPathComponent(found.verdict.sha256 + ".png")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let out = try Render.draw(pass, request: RenderRequest(format: .png, scale: 2, side: .front), barcode: barcode)
            try OutputFile.writeFile(out.bytes, to: path, what: "picture")
            return path
        } catch let error as CLIError {
            Terminal.warn(error.message)
        } catch {
            Terminal.warn("\(directory): cannot write the picture: \(error.localizedDescription)")
        }
        return nil
    }

    /// The scan's JSON object with `"render"`: the picture's path, or null.
    static func adding(_ picture: String?, to object: JSONOutput) -> JSONOutput {
        guard case .object(var members) = object else { return object }
        members.append(("render", .string(picture)))
        return .object(members)
    }
}
