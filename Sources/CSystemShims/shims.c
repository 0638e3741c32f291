#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
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

/// Set once linkat(AT_EMPTY_PATH) has been refused for want of CAP_DAC_READ_SEARCH while the /proc way worked:
/// later calls go the /proc way at once. A plain int is enough: every thread that races on it stores the same 1.
static int emptyPathRefused = 0;

int stowage_link_unnamed(int fd, const char *path) {
    // AT_EMPTY_PATH names the descriptor itself: no path walk through /proc/self/fd.
    if (!__atomic_load_n(&emptyPathRefused, __ATOMIC_RELAXED)) {
        if (linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0) return 0;
        if (errno != ENOENT && errno != EPERM) return -1;
    }
    int result = stowage_link_unnamed_via_proc(fd, path);
    if (result == 0) __atomic_store_n(&emptyPathRefused, 1, __ATOMIC_RELAXED);
    return result;
}

int stowage_link_unnamed_via_proc(int fd, const char *path) {
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, source, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

int stowage_forbid_inspection(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
