// MIMEBench: the MailMIME benchmark and dump tool.
//
//   MIMEBench walk FILE     parse every message of FILE (mbox or single message) and walk its parts
//                           (content type, file name, disposition) without decoding bodies
//   MIMEBench decode FILE   the same, and transfer-decode every leaf part
//   MIMEBench sizes FILE    like decode, printing the running decoded total after each message
//   MIMEBench dump PATH...  one JSON object per message (raw bytes, parts, decoded bodies in base64)
//                           for Tests/MailMIMETests/differential/differential.py
//
// walk/decode print one line: mode, messages, parts, input bytes, decoded bytes, seconds, MB/s.
import Foundation
import MailMIME

#if canImport(Glibc)
import Glibc
#endif

func openReader(_ path: String) throws -> (any MessageReader, InputFormat) {
    if MaildirReader.isMaildir(path) {
        return (try MaildirReader(path: path), .maildir)
    }
    let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw MailboxError(.cannotOpen, path: path, detail: String(cString: strerror(errno))) }
    // Sniff the first bytes to tell an mbox from a single message.
    var prefix = [UInt8](repeating: 0, count: 64)
    let n = prefix.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 64) }
    prefix = Array(prefix.prefix(max(0, n)))
    switch MailboxFormat.detect(prefix: prefix[...]) {
    case .mbox: return (MboxReader(fileDescriptor: fd, prefix: prefix, name: path), .mbox)
    default: return (SingleMessageReader(fileDescriptor: fd, prefix: prefix, name: path), .message)
    }
}

func jsonString(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
        }
    }
    return out + "\""
}

func dump(_ paths: [String]) throws {
    for path in paths {
        var (reader, format) = try openReader(path)
        while let mm = try reader.next() {
            let message = MIMEParser.parse(mm.bytes)
            var parts: [String] = []
            for part in message.parts {
                var fields = [
                    "\"path\":\(jsonString(part.path))",
                    "\"type\":\(jsonString(part.contentType.mimeType))",
                    "\"depth\":\(part.depth)",
                    "\"cte\":\(jsonString(part.transferEncoding.description))",
                    "\"multipart\":\(part.isMultipart)",
                    "\"message\":\(part.isEncapsulatedMessage)",
                ]
                if let f = part.filename { fields.append("\"filename\":\(jsonString(f))") }
                if let d = part.disposition { fields.append("\"disposition\":\(jsonString(d.kind))") }
                if !part.isMultipart && !part.isEncapsulatedMessage {
                    fields.append("\"decoded\":\"\(Data(message.decodedBody(of: part)).base64EncodedString())\"")
                }
                parts.append("{" + fields.joined(separator: ",") + "}")
            }
            let defects = message.defects.map { jsonString($0.code.rawValue) }.joined(separator: ",")
            let subject = message.subject.map { ",\"subject\":\(jsonString($0))" } ?? ""
            print("{\"input\":\(jsonString(path)),\"format\":\(jsonString("\(format)")),\"index\":\(mm.index),\"oversize\":\(mm.oversize),"
                  + "\"raw\":\"\(Data(mm.bytes).base64EncodedString())\",\"parts\":[\(parts.joined(separator: ","))],\"defects\":[\(defects)]\(subject)}")
        }
    }
}

func bench(mode: String, path: String) throws {
    let start = DispatchTime.now().uptimeNanoseconds
    var (reader, _) = try openReader(path)
    var messages = 0, partCount = 0, inputBytes = 0, decodedBytes = 0, touched = 0
    while let mm = try reader.next() {
        messages += 1
        inputBytes += mm.byteCount
        let message = MIMEParser.parse(mm.bytes)
        for part in message.parts {
            partCount += 1
            // Walk: what a scanner looks at for every part.
            touched &+= part.contentType.type.utf8.count &+ (part.filename?.utf8.count ?? 0) &+ (part.disposition?.kind.utf8.count ?? 0)
            if mode != "walk" && !part.isMultipart && !part.isEncapsulatedMessage {
                decodedBytes += message.decodedBody(of: part).count
            }
        }
        if mode == "sizes" { print(messages, decodedBytes) }  // running total per message, for cross-checks
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print(String(format: "%@ messages=%d parts=%d bytes=%d decoded=%d seconds=%.3f MB/s=%.1f (check %d)",
                 mode, messages, partCount, inputBytes, decodedBytes, seconds, Double(inputBytes) / 1e6 / seconds, touched % 7))
}

let args = CommandLine.arguments
guard args.count >= 3, ["walk", "decode", "sizes", "dump"].contains(args[1]) else {
    FileHandle.standardError.write("usage: MIMEBench walk|decode FILE  |  MIMEBench dump PATH...\n".data(using: .utf8)!)
    exit(64)
}
do {
    if args[1] == "dump" { try dump(Array(args.dropFirst(2))) } else { try bench(mode: args[1], path: args[2]) }
} catch {
    FileHandle.standardError.write("MIMEBench: \(error)\n".data(using: .utf8)!)
    exit(74)
}
