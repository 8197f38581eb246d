// Runs f(std::integral_constant<int, i>) for an index i known only at run time, i < COUNT: how a test runner
// picks one entry of a table of compile-time configurations (kernel shapes, layouts).
#pragma once
#include <type_traits>
#include <utility>

namespace tessera::testing {

template <int COUNT, class F>
void with_index(int i, F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    ((i == I ? (f(std::integral_constant<int, I>{}), 0) : 0), ...);
  }(std::make_integer_sequence<int, COUNT>{});
}

}  // namespace tessera::testing
