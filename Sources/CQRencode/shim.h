#ifndef STOWAGE_CQRENCODE_SHIM_H
#define STOWAGE_CQRENCODE_SHIM_H
// Debian's libqrencode-dev (Deploy/lib.sh installs it): QR code symbols for pairing links.
#include <qrencode.h>
#endif
