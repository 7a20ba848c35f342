// verify-x509 DIR: DIR holds an unzipped pass (manifest.json, signature and the files it lists) and
// trust/root.der, trust/intermediate.der (see run.sh). Does what passconduit's SignatureVerifier
// does for a DER SignedData signed with RSA and signed attributes: hashes the pass's files (SHA-1),
// parses the signature (SwiftASN1), checks the messageDigest attribute against SHA-256/SHA-1 of
// manifest.json, verifies the signer's signature over the signed attributes, and builds the chain
// with swift-certificates' Verifier at the signing time. Prints one line; exits 1 if anything fails.
// Deliberately narrow (first signer, RSA, DER): it measures the cost of the libraries, it is not a verifier.
import Crypto
import Foundation
import SwiftASN1
import X509

func bytes(_ path: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { fatalError("cannot read \(path)") }
    return Array(data)
}

func children(_ node: ASN1Node) -> [ASN1Node] {
    guard case .constructed(let nodes) = node.content else { return [] }
    return Array(nodes)
}

struct Failure: Error { var what: String }

/// Seconds from 1970 to midnight UTC of a civil date (H. Hinnant's days_from_civil), without ICU's calendar.
func unixTime(_ y0: Int, _ m: Int, _ d: Int) -> Int {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return (era * 146097 + doe - 719468) * 86400
}

func verify(_ dir: String) async throws -> String {
    let manifest = bytes(dir + "/manifest.json")
    // Hash every file of the pass, as the manifest check does (passconduit compares with its own JSON reader).
    var matching = 0
    for name in try FileManager.default.contentsOfDirectory(atPath: dir) where !["manifest.json", "signature", "trust"].contains(name) {
        if Array(Insecure.SHA1.hash(data: bytes(dir + "/" + name))).count == 20 { matching += 1 }
    }
    // ContentInfo { contentType, [0] EXPLICIT SignedData }
    let contentInfo = children(try DER.parse(bytes(dir + "/signature")))
    guard contentInfo.count == 2, let signedData = children(contentInfo[1]).first else { throw Failure(what: "ContentInfo") }
    var certificates: [Certificate] = []
    var signerInfos: [ASN1Node] = []
    for node in children(signedData) {
        if node.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            certificates = try children(node).map { try Certificate(derEncoded: Array($0.encodedBytes)) }
        } else if node.identifier == .set {
            signerInfos = children(node)
        }
    }
    // SignerInfo { version, sid, digestAlgorithm, [0] signedAttrs, signatureAlgorithm, signature }
    let signer = children(signerInfos.first ?? ASN1Node.empty)
    guard signer.count >= 6 else { throw Failure(what: "SignerInfo") }
    let attributes = signer[3]
    let signature = try ASN1OctetString(derEncoded: signer[5])
    var signedBytes = Array(attributes.encodedBytes)
    signedBytes[0] = 0x31   // signed over as a SET OF
    var signingTime: Date?
    var messageDigest: [UInt8] = []
    for attribute in children(attributes) {
        let parts = children(attribute)
        let oid = try ASN1ObjectIdentifier(derEncoded: parts[0])
        guard let value = children(parts[1]).first else { continue }
        if oid == [1, 2, 840, 113549, 1, 9, 5] {
            let t = try UTCTime(derEncoded: value)
            signingTime = Date(timeIntervalSince1970: TimeInterval(unixTime(t.year, t.month, t.day) + t.hours * 3600 + t.minutes * 60 + t.seconds))
        } else if oid == [1, 2, 840, 113549, 1, 9, 4] {
            messageDigest = Array(try ASN1OctetString(derEncoded: value).bytes)
        }
    }
    guard messageDigest == Array(SHA256.hash(data: manifest)) || messageDigest == Array(Insecure.SHA1.hash(data: manifest))
    else { throw Failure(what: "messageDigest") }
    guard let signingTime else { throw Failure(what: "signing time") }
    // The signer: the certificate whose key verifies the signature (enough for a measurement).
    guard let leaf = certificates.first(where: {
        $0.publicKey.isValidSignature(signature.bytes, for: signedBytes, signatureAlgorithm: .sha256WithRSAEncryption)
            || $0.publicKey.isValidSignature(signature.bytes, for: signedBytes, signatureAlgorithm: .sha1WithRSAEncryption)
    }) else { throw Failure(what: "signature") }
    let root = try Certificate(derEncoded: bytes(dir + "/trust/root.der"))
    let intermediate = try Certificate(derEncoded: bytes(dir + "/trust/intermediate.der"))
    var verifier = Verifier(rootCertificates: CertificateStore([root])) { RFC5280Policy(validationTime: signingTime) }
    switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(certificates + [intermediate])) {
    case .validCertificate(let chain): return "valid: \(chain.count) certificates, \(matching) files hashed"
    case .couldNotValidate: throw Failure(what: "chain")
    }
}

extension ASN1Node {
    static let empty = try! DER.parse([0x30, 0x00])
}

do {
    print(try await verify(CommandLine.arguments[1]))
} catch {
    print("not valid: \(error)")
    exit(1)
}
