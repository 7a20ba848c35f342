#include "CBuildInfo.h"

#ifndef PASSCONDUIT_COMMIT
#define PASSCONDUIT_COMMIT ""
#endif

const char *passconduit_build_commit(void) { return PASSCONDUIT_COMMIT; }
