import Barcodes
import Conduit
import LibraryRoot
import PassRender
import Support
import WalletPass

/// The system libraries passconduit loads on first use (script/gen-lazy-shims), for the checks an
/// administrator runs (`filter --check`): a missing one is named there, before mail arrives.
enum NativeLibraries {
    /// What scanning mail needs: opening and verifying passes, recognising attachments, the library.
    static let scanning: [NativeLibrary] = PassOpener.libraries + [MagicSniffer.library] + LibraryRoot.nativeLibraries
    /// What drawing a card needs as well.
    static let drawing: [NativeLibrary] = [PassRenderer.library, BarcodeEncoder.library]

    /// One sentence per library that cannot be loaded, in `libraries`' order.
    static func problems(_ libraries: [NativeLibrary]) -> [String] {
        var problems: [String] = []
        for library in libraries {
            do { try library.load() } catch { problems.append(error.message) }
        }
        return problems
    }
}
