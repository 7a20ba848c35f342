/* CZintLazy: the functions of libzint.so.2.11 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CZINTLAZY_H
#define CZINTLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int czintlazy_linked(void);
/* Loads libzint.so.2.11 and every function the trampolines call: 0, or -1 with a sentence in
   message naming the library and what is missing. Call before the first of them. */
int czintlazy_load(char *message, unsigned long size);
#endif
