#include "cmemory.h"
#include <malloc.h>

int passconduit_return_free_memory(void) {
    return malloc_trim(0);
}
