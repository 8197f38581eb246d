// Host implementation of solo (tile/solo.h): one CPU thread plays every consumer, so the soloist's work runs
// and what it returns is what every consumer gets.
#pragma once
#include <utility>

#include "tessera/tile/host/pipeline.h"

namespace tessera::tile::host {

struct Solo {
  template <class F>
  auto run(F&& f) { return std::forward<F>(f)(); }
};

template <class Shape>
Solo solo(Pipeline<Shape>&) { return {}; }

}  // namespace tessera::tile::host
