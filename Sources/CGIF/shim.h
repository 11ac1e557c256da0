// giflib for Swift.
#ifndef CLIPKIT_CGIF_SHIM_H
#define CLIPKIT_CGIF_SHIM_H
#include <gif_lib.h>
#endif
