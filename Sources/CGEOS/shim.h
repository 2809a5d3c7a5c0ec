// Only the re-entrant (context handle) half of the GEOS C API is exposed to Swift.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
