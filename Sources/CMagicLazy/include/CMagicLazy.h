/* CMagicLazy: the functions of libmagic.so.1 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CMAGICLAZY_H
#define CMAGICLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int cmagiclazy_linked(void);
#endif
