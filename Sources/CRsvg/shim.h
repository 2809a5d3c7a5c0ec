// librsvg (Debian's librsvg2-dev) and the cairo it draws with: the command line's SVG-to-PNG
// renderer for the footprint card. Only the executable links it (Scripts/check-layering).
#define RSVG_DISABLE_DEPRECATION_WARNINGS
#include <librsvg/rsvg.h>
#include <cairo.h>
