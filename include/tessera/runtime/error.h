// One exception type for the C++ API; the C API turns it into a status code and a last-error message.
#pragma once
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tessera {

// Values are part of the C ABI (include/tessera.h): append only.
enum class Status : int32_t { ok = 0, invalid_argument = 1, unsupported = 2, cuda_error = 3, io_error = 4, internal = 5 };

class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const { return status_; }
 private:
  Status status_;
};

[[noreturn]] void fail(Status status, const std::string& message);
[[noreturn]] inline void invalid_argument(const std::string& message) { fail(Status::invalid_argument, message); }
[[noreturn]] inline void unsupported(const std::string& message) { fail(Status::unsupported, message); }

// check(cond, "rms_norm: ...") throws invalid_argument with the message when cond is false.
inline void check(bool condition, const std::string& message) {
  if (!condition) invalid_argument(message);
}
// A literal message: no std::string is made (an allocation for one over 15 characters) unless the check fails.
inline void check(bool condition, const char* message) {
  if (!condition) invalid_argument(message);
}
// check(cond, [&] { return message; }): the message is built only when the check fails. For checks every op
// call makes: formatting shapes into messages that are thrown away cost more than the launch.
template <class Message>
  requires std::is_invocable_r_v<std::string, Message>
inline void check(bool condition, Message&& message) {
  if (!condition) invalid_argument(message());
}

}  // namespace tessera
