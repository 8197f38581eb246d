// Every op of the library.
#pragma once
#include "tessera/ops/activation.h"
#include "tessera/ops/attention.h"
#include "tessera/ops/elementwise.h"
#include "tessera/ops/embedding.h"
#include "tessera/ops/matmul.h"
#include "tessera/ops/norm.h"
#include "tessera/ops/rope.h"
#include "tessera/ops/sampling.h"
#include "tessera/ops/selfcheck.h"
#include "tessera/ops/softmax.h"
