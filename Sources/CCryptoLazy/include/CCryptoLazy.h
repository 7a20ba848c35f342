/* CCryptoLazy: the functions of libcrypto.so.3 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CCRYPTOLAZY_H
#define CCRYPTOLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int ccryptolazy_linked(void);
/* Loads libcrypto.so.3 and every function the trampolines call: 0, or -1 with a sentence in
   message naming the library and what is missing. Call before the first of them. */
int ccryptolazy_load(char *message, unsigned long size);
#endif
