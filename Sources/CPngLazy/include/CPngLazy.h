/* CPngLazy: the functions of libpng16.so.16 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CPNGLAZY_H
#define CPNGLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int cpnglazy_linked(void);
#endif
