// The host tile library: include from C++ translation units that instantiate kernels for the CPU.
#pragma once
#include "tessera/tile/host/launch.h"
#include "tessera/tile/host/math.h"
#include "tessera/tile/host/reduce.h"
#include "tessera/tile/host/tile.h"
#include "tessera/tile/host/pipeline.h"
#include "tessera/tile/host/gather.h"
