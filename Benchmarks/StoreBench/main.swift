import Foundation
import PassStore

// StoreBench: the PassStore benchmark, and the helper processes of the multi-process and
// crash tests (Tests/PassStoreTests run it as a child process).
//
//   StoreBench bench --library PATH [--passes 100000] [--samples 2000] [--size 30000] [--synchronous normal|full]
//   StoreBench worker --library PATH --worker N [--ops 200] [--size 8000]
//   StoreBench crash-child --library PATH --seed N

let usage = """
    usage: StoreBench bench --library PATH [--passes N] [--samples N] [--size BYTES] [--synchronous normal|full]
           StoreBench worker --library PATH --worker N [--ops N] [--size BYTES]
           StoreBench crash-child --library PATH --seed N
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
        try Bench.run(library: library, passes: option("passes", default: 100_000), samples: option("samples", default: 2_000),
                      size: option("size", default: 30_000), synchronous: sync)
    case "worker":
        try Worker.run(library: library, worker: option("worker"), ops: option("ops", default: 200), size: option("size", default: 8_000))
    case "crash-child":
        try CrashChild.run(library: library, seed: UInt64(option("seed")))
    default:
        FileHandle.standardError.write(Data("StoreBench: unknown command \(command)\n\(usage)\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("StoreBench \(command): \(error)\n".utf8))
    exit(1)
}
