#ifndef PASSCONDUIT_CZIP_SHIM_H
#define PASSCONDUIT_CZIP_SHIM_H
#include <zip.h>
#endif
