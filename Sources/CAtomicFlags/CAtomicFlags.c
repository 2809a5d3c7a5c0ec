// Every function is `static inline` in include/CAtomicFlags.h; SwiftPM needs one source file.
#include "CAtomicFlags.h"
