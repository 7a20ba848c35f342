/* CCryptoLazy: the functions of libcrypto.so.3 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CCRYPTOLAZY_H
#define CCRYPTOLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int ccryptolazy_linked(void);
#endif
