import Foundation
import Hummingbird

// The floor of Benchmarks/web: the wallet's page bytes served as static files by the same framework
// (Hummingbird 2's FileMiddleware, the same version and HTTP/1.1 server as `passconduit serve`),
// so what the wallet adds shows as a ratio. Usage: WebFloor DIRECTORY PORT
let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: WebFloor DIRECTORY PORT\n".utf8))
    exit(64)
}
let router = Router()
router.add(middleware: FileMiddleware(arguments[1], searchForIndexHtml: false))
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
