/* CSQLiteLazy: the functions of libsqlite3.so.0 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CSQLITELAZY_H
#define CSQLITELAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int csqlitelazy_linked(void);
/* Loads libsqlite3.so.0 and every function the trampolines call: 0, or -1 with a sentence in
   message naming the library and what is missing. Call before the first of them. */
int csqlitelazy_load(char *message, unsigned long size);
#endif
