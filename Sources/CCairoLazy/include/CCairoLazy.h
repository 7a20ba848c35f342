/* CCairoLazy: the functions of libpangocairo-1.0.so.0 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CCAIROLAZY_H
#define CCAIROLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int ccairolazy_linked(void);
#endif
