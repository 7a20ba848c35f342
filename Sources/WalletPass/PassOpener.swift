import Foundation
import Support

/// Opens a pass the way Wallet does (`PKPass(data:error:)`): safe unpacking, the manifest, the CMS
/// signature checked at its signing time against the trust store, pass.json, localization and icon.
/// Every failure is a `PassError` with a stable code and a sentence for the user.
///
/// Order of checks (the first failure decides the error): archive → pass.json, signature and
/// manifest.json present → manifest digests, unlisted files → signature maths and signing time →
/// pass.json required keys/format/style → signer identity (UID, OU) → chain at the signing time
/// (expired, untrusted) → Apple's rules on the signer (Apple anchors) → icon.
package struct PassOpener: Sendable {
    package let trust: TrustStore
    package let limits: PassLimits
    package let preferredLanguages: [String]
    /// The time a pass is opened at (only for the note that the signing certificate has expired
    /// since; the chain is checked at the signing time). Passed in, so tests choose it.
    package let now: @Sendable () -> Date
    /// The zone date fields are shown in, with its name written after the time (the web
    /// wallet's viewer); nil: the device's zone, unnamed, as Wallet on a phone.
    package var shownZone: ShownZone?

    /// A zone to show date fields in, and how to name it: `zone` nil keeps the offset the pass
    /// wrote; `name` gets the instant and the offset shown.
    package struct ShownZone: Sendable {
        package var zone: TimeZone?
        package var name: @Sendable (Date, Int) -> String
        package init(zone: TimeZone?, name: @escaping @Sendable (Date, Int) -> String) {
            self.zone = zone
            self.name = name
        }
    }

    package init(trust: TrustStore, limits: PassLimits = .init(), preferredLanguages: [String] = [],
                 now: @escaping @Sendable () -> Date = { Date() }) {
        self.trust = trust
        self.limits = limits
        self.preferredLanguages = preferredLanguages
        self.now = now
    }

    /// The system libraries opening and verifying a pass loads on first use (libzip, libcrypto).
    package static let libraries = [PassArchive.library, OpenSSL.library]

    package func open(_ bytes: [UInt8]) -> PassVerdict {
        open(HashedBytes(bytes))
    }

    /// Opens bytes already hashed (the caller keeps `hashed` to hand the library its proof).
    package func open(_ hashed: HashedBytes) -> PassVerdict {
        let bytes = hashed.bytes
        let sha256 = hashed.sha256
        func refuse(_ error: PassError, _ info: PassInfo? = nil, _ notes: [String] = [],
                    status: PassStatus = .invalid) -> PassVerdict {
            PassVerdict(status: status, error: error, pass: info, notes: notes, sha256: sha256)
        }

        let archive: PassArchive
        switch PassArchive.open(bytes, limits: limits) {
        case .success(let a): archive = a
        case .failure(let e): return refuse(e)
        }
        guard let passJSON = archive["pass.json"] else {
            if archive.names.contains(where: PassArchive.isBundleMember) {
                return refuse(.missingPassJSON("no pass.json; the archive holds .pkpass files: it is a .pkpasses bundle"))
            }
            return refuse(.missingPassJSON())
        }
        var notes: [String] = []
        let document: PassDocument?
        let documentError: PassError?
        switch PassDocument.parse(passJSON, maxDepth: limits.maxJSONDepth, maxUpcomingEntries: limits.maxUpcomingEntries) {
        case .success(let d):
            document = d
            documentError = d.problem
        case .failure(let e):
            document = nil
            documentError = e
        }
        var info = document.map { describe($0, archive, notes: &notes) }

        // A pass with neither file was stripped of its signature: say that, not "no manifest".
        guard let signature = archive["signature"] else { return refuse(.missingSignature(), info, notes) }
        guard let manifestBytes = archive["manifest.json"] else { return refuse(.missingManifest(), info, notes) }
        let manifest: Manifest
        switch Manifest.parse(manifestBytes, maxDepth: limits.maxJSONDepth) {
        case .success(let m): manifest = m
        case .failure(let e): return refuse(e, info, notes)
        }
        if let e = manifest.verify(archive) { return refuse(e, info, notes) }
        if manifest.digests.values.contains(where: { $0.utf8.count == 64 }) {
            notes.append("The manifest uses SHA-256 digests; Apple's passes use SHA-1.")
        }

        let outcome = SignatureVerifier(trust: trust).verify(signature: signature, manifest: manifestBytes)
        info?.signer = outcome.signer
        if let e = outcome.signatureError { return refuse(e, info, notes) }
        if let e = documentError { return refuse(e, info, notes) }
        guard let document, let leaf = outcome.leaf, let signer = outcome.signer else {
            return refuse(.signatureUnreadable("signer certificate not found"), info, notes)
        }

        // Identity: the certificate must be the one issued for this pass type and team.
        if leaf.userID != document.passTypeIdentifier {
            return refuse(.certificateMismatch(
                "the certificate is for pass type \(PassError.quoted(leaf.userID ?? "(no UID)")), the pass says \(PassError.quoted(document.passTypeIdentifier))"),
                info, notes)
        }
        if leaf.organizationalUnit != document.teamIdentifier {
            return refuse(.certificateMismatch(
                "the certificate belongs to team \(PassError.quoted(leaf.organizationalUnit ?? "(no OU)")), the pass says \(PassError.quoted(document.teamIdentifier))"),
                info, notes)
        }
        if let e = outcome.chainError {
            return refuse(e, info, notes, status: outcome.unanchored ? .untrusted : .invalid)
        }
        if signer.appleAnchor {
            guard leaf.hasMarker, leaf.passTypeMarker == document.passTypeIdentifier else {
                let found = leaf.hasMarker ? PassError.quoted(leaf.passTypeMarker ?? "(unreadable)") : "absent"
                return refuse(.certificateMismatch(
                    "Apple's pass-type extension 1.2.840.113635.100.6.1.16 of the certificate is \(found), the pass says \(PassError.quoted(document.passTypeIdentifier))"),
                    info, notes)
            }
            guard leaf.hasPassbookEKU else {
                return refuse(.certificateMismatch(
                    "the certificate lacks Apple's pass-signing key usage 1.2.840.113635.100.4.14"), info, notes)
            }
        }
        guard info?.icon != nil else {
            let present = archive.names.filter { $0.split(separator: "/").last?.hasPrefix("icon") ?? false }
            return refuse(present.isEmpty ? .missingIcon() : .missingIcon("no readable PNG image among \(present.joined(separator: ", "))"),
                          info, notes)
        }
        if let notAfter = signer.certificateNotAfter, notAfter < now() {
            notes.append("The signing certificate expired on \(OpenSSL.day(notAfter)), after the pass was signed.")
        }
        return PassVerdict(status: .valid, error: nil, pass: info, notes: notes, sha256: sha256)
    }

    /// Opens a `.pkpasses` bundle: each `.pkpass` member verified on its own.
    package func openBundle(_ bytes: [UInt8]) -> [BundleMember] {
        let archive: PassArchive
        switch PassArchive.open(bytes, limits: limits, layout: .bundle) {
        case .success(let a): archive = a
        case .failure(let e):
            return [BundleMember(name: nil, verdict: PassVerdict(status: .invalid, error: e, pass: nil, notes: [],
                                                                sha256: Digest.hex(.sha256, bytes)))]
        }
        guard !archive.files.isEmpty else {
            return [BundleMember(name: nil, verdict: PassVerdict(
                status: .invalid, error: .missingPassJSON("the bundle holds no .pkpass file"), pass: nil, notes: [],
                sha256: Digest.hex(.sha256, bytes)))]
        }
        guard archive.files.count <= limits.maxBundleMembers else {
            return [BundleMember(name: nil, verdict: PassVerdict(
                status: .invalid, error: .bundleTooLarge(members: archive.files.count, limit: limits.maxBundleMembers),
                pass: nil, notes: [], sha256: Digest.hex(.sha256, bytes)))]
        }
        return archive.files.map { BundleMember(name: $0.name, verdict: open($0.bytes), bytes: $0.bytes) }
    }

    // MARK: - Metadata

    private func describe(_ d: PassDocument, _ archive: PassArchive, notes: inout [String]) -> PassInfo {
        var folders: [String] = []
        for name in archive.names {
            guard let slash = name.firstIndex(of: "/") else { continue }
            let folder = name[..<slash]
            if folder.hasSuffix(".lproj") {
                let language = String(folder.dropLast(6))
                if !folders.contains(language) { folders.append(language) }
            }
        }
        let language = Localization.choose(folders, preferred: preferredLanguages)
        var table: [String: String] = [:]
        if let language, let bytes = archive["\(language).lproj/pass.strings"] {
            let strings = StringsFile.parse(bytes)
            table = strings.entries
            if let problem = strings.problem {
                notes.append("\(language).lproj/pass.strings could be read only in part: \(problem).")
            }
        }
        let localize: @Sendable (String) -> String = { [table] in table[$0] ?? $0 }
        // Rendered when first read (PassInfo.shownFields): a date field needs the device's zone.
        let shownZone = self.shownZone
        let shownFields = Deferred { [fields = d.fields] in
            var shown = fields
            for group in PassFieldGroup.allCases {
                group.set(group.fields(of: fields).map { FieldRenderer.render($0, localize: localize, shown: shownZone) }, in: &shown)
            }
            return shown
        }
        let shownPosterFields = d.fieldsByStyle[.posterGeneric].map { fields in
            Deferred { [fields] in
                var shown = fields
                for group in PassFieldGroup.allCases {
                    group.set(group.fields(of: fields).map { FieldRenderer.render($0, localize: localize, shown: shownZone) }, in: &shown)
                }
                shown.footerFields = fields.footerFields.map { FieldRenderer.render($0, localize: localize, shown: shownZone) }
                return shown
            }
        }
        var barcodes = d.barcodes
        for i in barcodes.indices { barcodes[i].altText = barcodes[i].altText.map(localize) }
        var legacyBarcode = d.legacyBarcode
        if let alt = legacyBarcode?.altText { legacyBarcode?.altText = localize(alt) }
        let foreground = d.foregroundColor?.hex
        let images = images(archive, language: language)

        return PassInfo(
            passTypeIdentifier: d.passTypeIdentifier, serialNumber: d.serialNumber, teamIdentifier: d.teamIdentifier,
            organizationName: localize(d.organizationName), description: localize(d.description),
            logoText: d.logoText.map(localize), kind: d.kind ?? .generic, kindName: Self.kindName(d),
            transitType: d.fields.transitType,
            relevantDate: d.relevantDate?.date ?? d.relevantDates.first.flatMap { $0.date?.date ?? $0.startDate?.date },
            relevantDates: d.relevantDates, expirationDate: d.expirationDate?.date, voided: d.voided,
            foregroundColor: foreground, backgroundColor: d.backgroundColor?.hex,
            labelColor: d.labelColor?.hex ?? foreground, barcodes: barcodes, legacyBarcode: legacyBarcode,
            shownFields: shownFields, shownPosterFields: shownPosterFields,
            webServiceURL: d.webServiceURL, canUpdate: d.webServiceURL != nil && d.authenticationToken != nil,
            signer: nil, icon: images.image("icon", scale: 3, ignoringCase: false), images: images, language: language,
            languages: folders.sorted(), strings: table, document: d)
    }

    /// The image files of the pass (root and `.lproj/`), looked up by name and scale.
    private func images(_ archive: PassArchive, language: String?) -> PassImages {
        var files: [String: [UInt8]] = [:]
        for name in archive.names where name.lowercased().hasSuffix(".png") {
            // AppleDouble resource forks ("__MACOSX/._icon.png") are not images.
            if name.hasPrefix("__MACOSX/") || name.split(separator: "/").last?.hasPrefix("._") == true { continue }
            files[name] = archive[name]
        }
        return PassImages(files: files, language: language)
    }
}

extension PassOpener {
    /// What a person calls the pass: its style's name, and for a poster generic pass that also
    /// carries a classic style (what devices before iOS 27 show) both
    /// ("Store Card (a Poster Pass on iOS 27)").
    static func kindName(_ d: PassDocument) -> String {
        let kind = d.kind ?? .generic
        guard kind != .posterGeneric, d.styles.contains(.posterGeneric) else { return kind.name }
        return "\(kind.name) (a \(PassKind.posterGeneric.name) on iOS 27)"
    }
}
