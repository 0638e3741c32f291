#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "CSystemShims.h"

int stowage_syncfs(int fd) { return syncfs(fd); }

int stowage_set_direct_io(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, on ? (flags | O_DIRECT) : (flags & ~O_DIRECT));
}

long stowage_fgetxattr(int fd, const char *name, void *value, unsigned long size) {
    return (long)fgetxattr(fd, name, value, size);
}

int stowage_fsetxattr(int fd, const char *name, const void *value, unsigned long size) {
    return fsetxattr(fd, name, value, size, 0);
}

int stowage_fremovexattr(int fd, const char *name) { return fremovexattr(fd, name); }

int stowage_open_unnamed(const char *directory, int mode) {
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
}

int stowage_link_unnamed(int fd, const char *path) {
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, source, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}
