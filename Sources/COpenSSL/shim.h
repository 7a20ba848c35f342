#ifndef PASSCONDUIT_COPENSSL_SHIM_H
#define PASSCONDUIT_COPENSSL_SHIM_H
#include <openssl/cms.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/objects.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>

// OpenSSL's STACK_OF(X509) helpers are macros Swift cannot import; these wrappers give them a
// prefixed, typed name (the swift-nio habit: `CNIOLinux_accept4`).
static inline int COpenSSL_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline X509 *COpenSSL_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
static inline STACK_OF(X509) *COpenSSL_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int COpenSSL_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
static inline void COpenSSL_sk_X509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }
static inline void COpenSSL_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }
// OPENSSL_free is a macro over CRYPTO_free with file/line arguments.
static inline void COpenSSL_free(void *p) { OPENSSL_free(p); }
#endif
