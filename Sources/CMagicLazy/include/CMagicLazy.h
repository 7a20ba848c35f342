/* CMagicLazy: the functions of libmagic.so.1 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CMAGICLAZY_H
#define CMAGICLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int cmagiclazy_linked(void);
/* Loads libmagic.so.1 and every function the trampolines call: 0, or -1 with a sentence in
   message naming the library and what is missing. Call before the first of them. */
int cmagiclazy_load(char *message, unsigned long size);
#endif
