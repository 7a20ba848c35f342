// cairo (PNG, PDF and SVG surfaces) and pango on cairo, from Debian's libcairo2-dev and
// libpango1.0-dev. Include paths come from pkg-config ("pangocairo").
#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <pango/pangocairo.h>
