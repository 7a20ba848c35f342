#ifndef PASSCONDUIT_CMAGIC_SHIM_H
#define PASSCONDUIT_CMAGIC_SHIM_H
#include <magic.h>
#endif
