#ifndef C_SYSTEM_SHIMS_H
#define C_SYSTEM_SHIMS_H

/// syncfs(2): commits the filesystem holding `fd` to stable storage. Glibc declares it only under
/// _GNU_SOURCE, which Swift's Glibc module does not define. Returns 0, or -1 with errno set.
int stowage_syncfs(int fd);

#endif
