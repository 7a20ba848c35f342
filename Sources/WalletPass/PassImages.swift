/// The PNG images of a pass by name ("logo", "strip", …), for whoever draws it: the chosen
/// language's `.lproj` first (Wallet localizes images, [WDG] Figure 4-1), then the root; within
/// each, the wanted scale, then sharper ones (they scale down well), then blurrier ones — KPkPass's
/// rule, which also finds passes that ship only `@3x` images. File names are matched exactly first,
/// then ignoring case (real passes carry `Icon.png`). A file whose PNG header is unsound is skipped,
/// as if absent; the pixel size always comes from the header, never from the name.
package struct PassImages: Sendable, Equatable {
    /// Image files of the pass (names ending in ".png", root and `.lproj/`), with their bytes.
    private let files: [String: [UInt8]]
    /// Lower-cased path -> path, for the case-insensitive second try.
    private let folded: [String: String]
    /// The `.lproj` folder (without the suffix) images are localized from, if any.
    package let language: String?

    package init(files: [String: [UInt8]], language: String?) {
        self.files = files
        var folded: [String: String] = [:]
        for name in files.keys.sorted() where folded[name.lowercased()] == nil { folded[name.lowercased()] = name }
        self.folded = folded
        self.language = language
    }

    package static let empty = PassImages(files: [:], language: nil)

    /// Every image path the pass carries.
    package var names: [String] { files.keys.sorted() }

    /// The raw bytes of `path`, if the pass has that file.
    package subscript(path: String) -> [UInt8]? { files[path] }

    /// The best variant of image `name` ("logo", "strip", "icon") for output at `scale` (1, 2, 3).
    /// `ignoringCase: false` is Wallet's own (case-sensitive) lookup, which verification uses.
    package func image(_ name: String, scale: Int = 2, ignoringCase: Bool = true) -> PassImage? {
        let wanted = min(max(scale, 1), 3)
        // Wanted first, then sharper (downscaling keeps detail), then blurrier.
        let order = [wanted] + [1, 2, 3].filter { $0 > wanted } + [3, 2, 1].filter { $0 < wanted }
        let folders = [language.map { "\($0).lproj/" }, ""].compactMap { $0 }
        for folder in folders {
            for s in order {
                let path = folder + name + (s == 1 ? "" : "@\(s)x") + ".png"
                if let found = lookUp(path, ignoringCase: ignoringCase) { return found }
            }
        }
        return nil
    }

    private func lookUp(_ path: String, ignoringCase: Bool) -> PassImage? {
        for candidate in [path, ignoringCase ? folded[path.lowercased()] : nil].compactMap({ $0 }) {
            if let bytes = files[candidate], let size = PassImage.pngSize(bytes) {
                return PassImage(file: candidate, width: size.width, height: size.height, bytes: bytes)
            }
        }
        return nil
    }
}
