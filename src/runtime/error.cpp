#include "tessera/runtime/error.h"

namespace tessera {
void fail(Status status, const std::string& message) { throw Error(status, message); }
}  // namespace tessera
