import Foundation
import PassStore

// PassStoreTestChild: the child processes of the PassStore multi-process and crash tests
// (Tests/PassStoreTests start it; Package.swift declares it so it is built with the tests).
//
//   PassStoreTestChild worker --library PATH --worker N [--ops 200] [--size 8000]
//   PassStoreTestChild crash-child --library PATH --seed N

let usage = """
    usage: PassStoreTestChild worker --library PATH --worker N [--ops N] [--size BYTES]
           PassStoreTestChild crash-child --library PATH --seed N
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
    FileHandle.standardError.write(Data("PassStoreTestChild: --\(name) is required\n\(usage)\n".utf8))
    exit(64)
}

guard let library = options["library"] else {
    FileHandle.standardError.write(Data("PassStoreTestChild: --library is required\n\(usage)\n".utf8))
    exit(64)
}

do {
    switch command {
    case "worker":
        try Worker.run(library: library, worker: option("worker"), ops: option("ops", default: 200), size: option("size", default: 8_000))
    case "crash-child":
        try CrashChild.run(library: library, seed: UInt64(option("seed")))
    default:
        FileHandle.standardError.write(Data("PassStoreTestChild: unknown command \(command)\n\(usage)\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("PassStoreTestChild \(command): \(error)\n".utf8))
    exit(1)
}
