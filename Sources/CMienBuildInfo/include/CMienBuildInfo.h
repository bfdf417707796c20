#ifndef CMIEN_BUILD_INFO_H
#define CMIEN_BUILD_INFO_H

/// The git commit this build was made from (short hash, with "-dirty" when the work tree had uncommitted
/// changes), or "unknown" when it was built outside a git checkout. Set by Package.swift at build time.
const char *mien_build_commit(void);

#endif
