// The gather/scatter test kernel on the host (the specification).
#include "tessera/tile/tile.h"
#include "gather_rows_launch.h"
