import COpenSSL
import Synchronization

/// The trust store's one lookup method: when OpenSSL builds a chain and finds no certificate with
/// a subject in the store, it asks here; every anchor with that subject is decoded and added to
/// the store (later chains find them there), and the store's first one is the answer, as if all
/// had been added at load. An anchor that does not decode (its structure read at load was fine)
/// is left out, as it would be missing from any chain.
final class AnchorLookup: @unchecked Sendable {
    struct Entry: @unchecked Sendable {   // the name and the certificate are read only under the lock
        var der: [UInt8]
        /// Owned X509_NAME (freed in deinit).
        var subject: OpaquePointer
        var added = false
        /// The decoded certificate once added (one reference of its own, freed in deinit); nil
        /// before, or when it did not decode.
        var certificate: OpaquePointer?
    }

    private let entries: Mutex<[Entry]>
    /// Certificates decoded for this store: anchors here, signatures' certificates in
    /// `TrustStore.certificates` (tests: a signature's copy of an anchor is not decoded again).
    let decodings = Atomic<Int>(0)

    init(_ entries: [Entry]) { self.entries = Mutex(entries) }

    deinit {
        entries.withLock {
            for entry in $0 {
                X509_NAME_free(entry.subject)
                if let certificate = entry.certificate { X509_free(certificate) }
            }
        }
    }

    /// OpenSSL keeps the method for the process (every store of every TrustStore points at it).
    nonisolated(unsafe) static let method: OpaquePointer? = {
        guard let method = X509_LOOKUP_meth_new("passconduit anchors") else { return nil }
        X509_LOOKUP_meth_set_get_by_subject(method) { lookup, type, name, result in
            guard type == X509_LU_X509, let lookup, let name, let result,
                  let data = X509_LOOKUP_get_method_data(lookup), let store = X509_LOOKUP_get_store(lookup) else { return 0 }
            return Unmanaged<AnchorLookup>.fromOpaque(data).takeUnretainedValue().find(name, store: store, into: result) ? 1 : 0
        }
        return method
    }()

    /// Adds the anchors named `name` to `store` (once) and sets `result` to the store's first
    /// certificate with that subject, borrowed as OpenSSL's own lookups return it.
    private func find(_ name: OpaquePointer, store: OpaquePointer, into result: OpaquePointer) -> Bool {
        entries.withLock { entries in add(named: name, to: store, entries: &entries) }
        guard X509_STORE_lock(store) == 1 else { return false }
        defer { X509_STORE_unlock(store) }
        guard let object = X509_OBJECT_retrieve_by_subject(X509_STORE_get0_objects(store), X509_LU_X509, name),
              let cert = X509_OBJECT_get0_X509(object), X509_OBJECT_set1_X509(result, cert) == 1 else { return false }
        X509_free(cert)   // the store holds the certificate; the caller takes its own reference
        return true
    }

    /// Decodes every anchor whose subject is `name` and not yet added, and adds it to `store`,
    /// in load order (the order the store's lookup has always added them in).
    private func add(named name: OpaquePointer, to store: OpaquePointer, entries: inout [Entry]) {
        for i in entries.indices where !entries[i].added && X509_NAME_cmp(entries[i].subject, name) == 0 {
            entries[i].added = true
            decodings.add(1, ordering: .relaxed)
            // d2i_X509 reads at most der.count bytes and copies what it keeps.
            let cert: OpaquePointer? = entries[i].der.withUnsafeBytes { raw in
                var p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return d2i_X509(nil, &p, raw.count)
            }
            guard let cert else { continue }
            _ = X509_STORE_add_cert(store, cert)
            entries[i].certificate = cert   // the entry keeps the decoding's own reference
        }
    }

    /// The anchor whose DER is exactly `der`, decoded and in the store (with every anchor of its
    /// subject, as `find` adds them), with a reference of its own for the caller; nil when no
    /// anchor has these bytes (or it did not decode).
    func anchor(withDER der: ArraySlice<UInt8>, store: OpaquePointer) -> OpaquePointer? {
        entries.withLock { entries in
            guard let i = entries.firstIndex(where: { $0.der.count == der.count && $0.der[...] == der }) else { return nil }
            if !entries[i].added { add(named: entries[i].subject, to: store, entries: &entries) }
            guard let cert = entries[i].certificate else { return nil }
            X509_up_ref(cert)
            return cert
        }
    }
}
