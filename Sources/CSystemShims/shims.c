#define _GNU_SOURCE
#include <unistd.h>
#include "CSystemShims.h"

int stowage_syncfs(int fd) { return syncfs(fd); }
