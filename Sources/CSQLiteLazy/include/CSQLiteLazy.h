/* CSQLiteLazy: the functions of libsqlite3.so.0 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CSQLITELAZY_H
#define CSQLITELAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int csqlitelazy_linked(void);
#endif
