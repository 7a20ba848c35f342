/* CBuildInfo: what the build knows of itself (the commit it was built from). */
#ifndef CBUILDINFO_H
#define CBUILDINFO_H
/* The commit `make build` passed as -DPASSCONDUIT_COMMIT ("abc123def456", "-dirty" when the work
   tree had changes); "" for a build that did not say (a plain `swift build`). */
const char *passconduit_build_commit(void);
#endif
