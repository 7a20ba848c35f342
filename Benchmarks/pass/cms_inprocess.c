/* The peer done in process: what verifying one pass signature costs with OpenSSL's CMS API used
 * directly (parse the CMS, CMS_verify over manifest.json, build the chain at the signing time),
 * per call, in a loop. No unzip, no manifest hashing, no pass.json: less work than PassBench.
 *   cc -O2 cms_inprocess.c -o cms_inprocess -lcrypto
 *   ./cms_inprocess signature manifest.json ca.pem SIGNING_TIME_EPOCH [ITERATIONS] */
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static unsigned char *slurp(const char *path, long *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(66); }
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    rewind(f);
    unsigned char *b = malloc(*n);
    if (fread(b, 1, *n, f) != (size_t)*n) exit(74);
    fclose(f);
    return b;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: %s signature manifest.json ca.pem epoch [n]\n", argv[0]); return 64; }
    long sn, mn;
    unsigned char *sig = slurp(argv[1], &sn), *man = slurp(argv[2], &mn);
    time_t at = (time_t)atoll(argv[4]);
    int n = argc > 5 ? atoi(argv[5]) : 5000;
    X509_STORE *store = X509_STORE_new();  /* built once, like PassConduit's TrustStore */
    BIO *ca = BIO_new_file(argv[3], "r");
    X509 *x;
    while ((x = PEM_read_bio_X509(ca, NULL, NULL, NULL))) { X509_STORE_add_cert(store, x); X509_free(x); }
    ERR_clear_error();
    double *t = malloc(sizeof(double) * n);
    for (int i = -200; i < n; i++) {
        double t0 = now_ms();
        const unsigned char *p = sig;
        CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &p, sn);
        BIO *content = BIO_new_mem_buf(man, (int)mn);
        if (!cms || CMS_verify(cms, NULL, NULL, content, NULL, CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY) != 1) {
            ERR_print_errors_fp(stderr); return 1;
        }
        STACK_OF(X509) *signers = CMS_get0_signers(cms);
        STACK_OF(X509) *certs = CMS_get1_certs(cms);
        X509_STORE_CTX *ctx = X509_STORE_CTX_new();
        X509_STORE_CTX_init(ctx, store, sk_X509_value(signers, 0), certs);
        X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), at);
        X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_ANY);
        if (X509_verify_cert(ctx) != 1) { fprintf(stderr, "chain: %d\n", X509_STORE_CTX_get_error(ctx)); return 1; }
        X509_STORE_CTX_free(ctx);
        sk_X509_pop_free(certs, X509_free);
        sk_X509_free(signers);
        BIO_free(content);
        CMS_ContentInfo_free(cms);
        if (i >= 0) t[i] = now_ms() - t0;
    }
    qsort(t, n, sizeof(double), cmp_double);
    printf("openssl CMS API in process: iterations %d  median %.4f ms  p10 %.4f  p90 %.4f  min %.4f\n",
           n, t[n / 2], t[n / 10], t[n * 9 / 10], t[0]);
    return 0;
}
