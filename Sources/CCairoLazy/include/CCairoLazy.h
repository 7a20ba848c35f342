/* CCairoLazy: the functions of libpangocairo-1.0.so.0 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CCAIROLAZY_H
#define CCAIROLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int ccairolazy_linked(void);
/* Loads libpangocairo-1.0.so.0 and every function the trampolines call: 0, or -1 with a sentence in
   message naming the library and what is missing. Call before the first of them. */
int ccairolazy_load(char *message, unsigned long size);
#endif
