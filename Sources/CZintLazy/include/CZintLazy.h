/* CZintLazy: the functions of libzint.so.2.11 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CZINTLAZY_H
#define CZINTLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int czintlazy_linked(void);
#endif
