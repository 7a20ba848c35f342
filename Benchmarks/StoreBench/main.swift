import Foundation
import PassStore

// StoreBench: the PassStore benchmark (Benchmarks/store/run.sh), an SQLite file or a PostgreSQL
// library. The multi-process and crash tests' child processes are their own target, Tests/PassStoreTestChild.
//
//   StoreBench bench --library PATH|postgresql://… [--passes 100000] [--samples 2000] [--size 30000]
//                    [--synchronous normal|full] [--list-samples 10] [--user NAME] [--fill-concurrency 4]

let usage = """
    usage: StoreBench bench --library PATH|URI [--passes N] [--samples N] [--size BYTES] [--synchronous normal|full]
                            [--list-samples N] [--user NAME] [--fill-concurrency N]
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    FileHandle.standardError.write(Data("\(usage)\n".utf8))
    exit(64)
}
var options: [String: String] = [:]
var index = 1
while index + 1 < arguments.count {
    guard arguments[index].hasPrefix("--") else { break }
    options[String(arguments[index].dropFirst(2))] = arguments[index + 1]
    index += 2
}

@MainActor func option(_ name: String, default value: Int? = nil) -> Int {
    if let text = options[name], let n = Int(text) { return n }
    if let value { return value }
    FileHandle.standardError.write(Data("StoreBench: --\(name) is required\n\(usage)\n".utf8))
    exit(64)
}

guard let library = options["library"] else {
    FileHandle.standardError.write(Data("StoreBench: --library is required\n\(usage)\n".utf8))
    exit(64)
}

do {
    switch command {
    case "bench":
        let sync: LibraryOptions.Synchronous = options["synchronous"] == "full" ? .full : .normal
        try await Bench.run(Bench.Settings(
            library: library, passes: option("passes", default: 100_000), samples: option("samples", default: 2_000),
            size: option("size", default: 30_000), synchronous: sync, listSamples: option("list-samples", default: 10),
            user: options["user"], fillConcurrency: option("fill-concurrency", default: 4)))
    default:
        FileHandle.standardError.write(Data("StoreBench: unknown command \(command)\n\(usage)\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("StoreBench \(command): \(error)\n".utf8))
    exit(1)
}
