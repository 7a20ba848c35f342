#ifndef PASSCONDUIT_CZINT_SHIM_H
#define PASSCONDUIT_CZINT_SHIM_H
/* Debian's libzint-dev (2.11) ships no pkg-config file: the header is /usr/include/zint.h and the
   library /usr/lib/libzint.so, both on the default search paths. */
#include <zint.h>

/* Swift imports zint_symbol's fixed arrays (encoded_data[200][144], row_height[200], errtxt[100])
   as tuples of tens of thousands of elements: touching them from Swift copies the whole tuple and
   makes the compiler crawl. These accessors read one element in C instead. */

/* Whether module `column` of row `row` is set: zint's own module_is_set() (backend/common.c). */
static inline int czint_module_is_set(const struct zint_symbol *symbol, int row, int column) {
    if (row < 0 || row >= 200 || column < 0 || column >= 144 * 8) return 0;
    return (symbol->encoded_data[row][column >> 3] >> (column & 7)) & 1;
}

/* Height of row `row` in X-dimensions (0 when zint spreads `height` evenly). */
static inline float czint_row_height(const struct zint_symbol *symbol, int row) {
    if (row < 0 || row >= 200) return 0;
    return symbol->row_height[row];
}

/* zint's error text, NUL-terminated inside the symbol. */
static inline const char *czint_errtxt(const struct zint_symbol *symbol) {
    return symbol->errtxt;
}
#endif
