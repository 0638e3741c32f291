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

/// open(2) of an unnamed regular file in `directory` (O_TMPFILE | O_RDWR | O_CLOEXEC): it has no name, so no
/// directory entry is written until stowage_link_unnamed gives it one, and it vanishes if the process dies first.
/// Returns the descriptor, or -1 with errno set (EOPNOTSUPP / EISDIR / EINVAL: the filesystem or kernel has none;
/// ENOENT: no such directory).
int stowage_open_unnamed(const char *directory, int mode);

/// Gives the unnamed file open as `fd` the name `path`: linkat(AT_EMPTY_PATH) where the process may (it needs
/// CAP_DAC_READ_SEARCH), else linkat through /proc/self/fd, which needs no privilege.
/// Returns 0, or -1 with errno set (EEXIST: the name is taken; ENOENT: /proc is not mounted or the folder went).
int stowage_link_unnamed(int fd, const char *path);

/// stowage_link_unnamed's way for a process without CAP_DAC_READ_SEARCH: linkat through /proc/self/fd.
int stowage_link_unnamed_via_proc(int fd, const char *path);

/// prctl(PR_SET_DUMPABLE, 0): no core dump, and no other process of the same user may ptrace this one or read
/// its memory through /proc/PID/mem (a process holding keys, next to workers that parse hostile input under
/// the same user). The process itself keeps its own /proc/self. Returns 0, or -1 with errno set.
int stowage_forbid_inspection(void);

/// Installs handlers for the signals a Swift trap or a memory fault raises (SIGILL, SIGTRAP, SIGABRT, SIGSEGV,
/// SIGBUS, SIGFPE): each writes the byte '!' at offset 0 of `fd` (a crash journal, see CrashJournal.swift), puts
/// back the handler that was there before (the runtime's backtracer, or the default) and raises the signal again,
/// so the process dies of it as before. Async-signal-safe. The handlers are installed once per process; a later call
/// only changes the file (-1: none). Returns 0, or -1 with errno set.
int stowage_crash_journal_install(int fd);

/// The crash handlers stop writing to `fd` if it is the file they write to (a journal being closed).
void stowage_crash_journal_release(int fd);

#endif
