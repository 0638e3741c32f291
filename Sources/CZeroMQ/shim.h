#ifndef STOWAGE_CZEROMQ_SHIM_H
#define STOWAGE_CZEROMQ_SHIM_H
// Debian's libzmq3-dev. Linked directly (not via pkg-config) to avoid libzmq.pc's -isystem warning.
#include <zmq.h>
#endif
