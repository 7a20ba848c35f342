/* verify-openssl DIR: the same work as verify-x509 with OpenSSL 3 (what passconduit uses):
 * SHA-1 of each pass file (EVP), the CMS SignedData over manifest.json (CMS_verify) and the chain
 * at the signing time in an X509_STORE holding trust/root.der and trust/intermediate.der.
 * Prints one line; exits 1 if anything fails. A measurement, not a verifier. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

static unsigned char *slurp(const char *dir, const char *name, long *length) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot read %s\n", path); exit(1); }
    fseek(f, 0, SEEK_END);
    *length = ftell(f);
    rewind(f);
    unsigned char *p = malloc(*length ? *length : 1);
    if (fread(p, 1, *length, f) != (size_t)*length) exit(1);
    fclose(f);
    return p;
}

static X509 *certificate(const char *dir, const char *name) {
    long n;
    unsigned char *der = slurp(dir, name, &n);
    const unsigned char *p = der;
    X509 *x = d2i_X509(NULL, &p, n);
    free(der);
    return x;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *dir = argv[1];
    int hashed = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "manifest.json") || !strcmp(e->d_name, "signature") ||
            !strcmp(e->d_name, "trust")) continue;
        long n;
        unsigned char *bytes = slurp(dir, e->d_name, &n), md[EVP_MAX_MD_SIZE];
        unsigned int mdlen;
        if (EVP_Digest(bytes, n, md, &mdlen, EVP_sha1(), NULL) == 1 && mdlen == 20) hashed++;
        free(bytes);
    }
    if (d) closedir(d);
    long siglen, manlen;
    unsigned char *sig = slurp(dir, "signature", &siglen), *manifest = slurp(dir, "manifest.json", &manlen);
    const unsigned char *p = sig;
    CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &p, siglen);
    if (!cms) { puts("not valid: CMS"); return 1; }
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, certificate(dir, "trust/root.der"));
    X509_STORE_add_cert(store, certificate(dir, "trust/intermediate.der"));
    /* Chain at the signing time, purpose any: as passconduit's SignatureVerifier. */
    CMS_SignerInfo *si = sk_CMS_SignerInfo_value(CMS_get0_SignerInfos(cms), 0);
    int at = CMS_signed_get_attr_by_NID(si, NID_pkcs9_signingTime, -1);
    ASN1_TYPE *t = X509_ATTRIBUTE_get0_type(CMS_signed_get_attr(si, at), 0);
    struct tm tm;
    if (at < 0 || !t || ASN1_TIME_to_tm(t->value.utctime, &tm) != 1) { puts("not valid: signing time"); return 1; }
    X509_VERIFY_PARAM_set_time(X509_STORE_get0_param(store), timegm(&tm));
    X509_STORE_set_purpose(store, X509_PURPOSE_ANY);
    BIO *content = BIO_new_mem_buf(manifest, (int)manlen);
    if (CMS_verify(cms, NULL, store, content, NULL, CMS_BINARY) != 1) {
        printf("not valid: %s\n", ERR_reason_error_string(ERR_get_error()));
        return 1;
    }
    printf("valid: %d files hashed\n", hashed);
    return 0;
}
