#ifndef C_SYSTEM_SHIMS_H
#define C_SYSTEM_SHIMS_H

/// syncfs(2): commits the filesystem holding `fd` to stable storage. Glibc declares it only under
/// _GNU_SOURCE, which Swift's Glibc module does not define. Returns 0, or -1 with errno set.
int stowage_syncfs(int fd);

/// Sets (`on` != 0) or clears O_DIRECT on an open file with fcntl(F_SETFL): writes then go from the caller's
/// (aligned) buffer to the device without a copy into the page cache. Returns 0, or -1 with errno set
/// (EINVAL: the filesystem does not do direct I/O).
int stowage_set_direct_io(int fd, int on);

/// fgetxattr(2), fsetxattr(2) (flags 0) and fremovexattr(2): extended attributes of an open file.
/// Return -1 with errno set on failure (ENOTSUP / EOPNOTSUPP: the filesystem keeps none; ENODATA: no such name).
long stowage_fgetxattr(int fd, const char *name, void *value, unsigned long size);
int stowage_fsetxattr(int fd, const char *name, const void *value, unsigned long size);
int stowage_fremovexattr(int fd, const char *name);

#endif
