/* CZipLazy: the functions of libzip.so.4 the Swift code calls, loaded on first use (lazy.c). */
#ifndef CZIPLAZY_H
#define CZIPLAZY_H
/* How many functions the trampolines cover; importing this module links them in. */
int cziplazy_linked(void);
#endif
