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

#include <signal.h>
#include <string.h>

static int crash_journal_fd = -1;
static const int crash_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE};
static struct sigaction crash_previous[sizeof(crash_signals) / sizeof(crash_signals[0])];

static int crash_handlers_installed = 0;

static void crash_journal_handler(int sig) {
    if (crash_journal_fd >= 0) {
        ssize_t ignored = pwrite(crash_journal_fd, "!", 1, 0);
        (void)ignored;
    }
    for (unsigned i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++) {
        if (crash_signals[i] == sig) sigaction(sig, &crash_previous[i], NULL);
    }
    raise(sig);
}

int stowage_crash_journal_install(int fd) {
    crash_journal_fd = fd;
    if (crash_handlers_installed) return 0;
    crash_handlers_installed = 1;
    for (unsigned i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++) {
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_handler = crash_journal_handler;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_NODEFER | SA_RESETHAND;
        if (sigaction(crash_signals[i], &action, &crash_previous[i]) != 0) return -1;
    }
    return 0;
}

void stowage_crash_journal_release(int fd) {
    if (crash_journal_fd == fd) crash_journal_fd = -1;
}
