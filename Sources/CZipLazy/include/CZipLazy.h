/* CZipLazy: the functions of libzip.so.4 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CZIPLAZY_H
#define CZIPLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int cziplazy_linked(void);
/* Loads libzip.so.4 and every function the trampolines call: 0, or -1 with a sentence in
   message naming the library and what is missing. Call before the first of them. */
int cziplazy_load(char *message, unsigned long size);
#endif
