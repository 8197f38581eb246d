// The dispatcher: op name -> backend -> implementation, backend selection and fallback.
//
// Selection for one call: the call's Options::backend, else the global choice (set_backend, or the
// TESSERA_BACKEND environment variable), else the natural backend of the tensors' device (tile-cuda for CUDA
// tensors, tile-host for CPU tensors). When the chosen backend cannot run the call (not built, no GPU, no
// kernel for this dtype), the dispatcher falls back along tile-cuda -> reference and tile-host -> reference,
// warning once per op and pair of backends; with TESSERA_DISABLE_FALLBACK=1 a fallback is an error instead.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/runtime/device.h"
#include "tessera/runtime/tensor.h"

namespace tessera::dispatch {

// Values are part of the C ABI (include/tessera.h): append only.
enum class Backend : int32_t { tile_cuda = 0, tile_host = 1, reference = 2 };
inline constexpr Backend kAllBackends[] = {Backend::tile_cuda, Backend::tile_host, Backend::reference};

std::string_view backend_name(Backend b);
std::optional<Backend> backend_from_name(std::string_view name);

// Per-call options.
struct Options {
  std::optional<Backend> backend;  // overrides the global choice for this call
  StreamHandle stream = nullptr;   // CUDA stream for tile-cuda; ignored elsewhere
  // A promise that the call's weights (matmul's b, matmul_silu_and_mul's and qkv_rope_kv_cache_append's w,
  // rms_norm's weight) were not written by the kernel launched just before it in the stream (a model's weights,
  // written at load). On Hopper the few-rows projection kernels then ask for their first weight tiles, and
  // rms_norm's kernel for a decode step's few rows for the weight, while that kernel finishes.
  // Leave it false when unsure: a broken promise reads stale weights.
  bool weights_settled = false;
  // A promise that embedding's ids all lie inside the table (a tokenizer's output, checked on the host before).
  // On the GPU the call then queues its gather without the check of the ids, whose result it would otherwise
  // wait for before returning (one round trip to the device a call, ~20 us). A broken promise writes zeros for
  // the rows of the bad ids, as a call captured into a CUDA graph does. CPU ids are checked either way.
  bool ids_in_range = false;
};

// The global backend choice; nullopt restores selection by device. Initialised from TESSERA_BACKEND.
void set_backend(std::optional<Backend> backend);
std::optional<Backend> global_backend();
// Whether a fallback is an error (TESSERA_DISABLE_FALLBACK=1, or set here).
void set_fallback_enabled(bool enabled);
bool fallback_enabled();

// Why a backend cannot run a call, or nullopt when it can.
using Refusal = std::optional<std::string>;

struct OpInfo {
  std::string name;
  std::vector<Backend> backends;  // registered implementations
};
// Every op registered so far (ops register on first use; ops::register_all() registers them all).
std::vector<OpInfo> registered_ops();

namespace detail {
void add_op_info(const std::string& name, Backend b);
void warn_fallback_once(const std::string& op, Backend from, Backend to, const std::string& why);
[[noreturn]] void no_backend(const std::string& op, const std::string& why);
Backend natural_backend(Device device);
}  // namespace detail

// One op: its implementations by backend. Args is the op's argument struct (tensors and scalars).
template <class Args>
class Op {
 public:
  using Impl = std::function<void(const Args&, const Options&)>;
  using Check = std::function<Refusal(const Args&)>;

  explicit Op(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  // `check` says whether this implementation can run the given call (dtype, device ...).
  void add(Backend backend, Impl impl, Check check = nullptr) {
    impls_[backend] = Entry{std::move(impl), std::move(check)};
    detail::add_op_info(name_, backend);
  }
  bool has(Backend backend) const { return impls_.count(backend) != 0; }

  // Runs the call on the selected backend, falling back as the header comment says.
  // Returns the backend that ran.
  Backend operator()(const Args& args, Device device, const Options& options = {}) const {
    const Backend wanted = options.backend ? *options.backend
                           : global_backend() ? *global_backend()
                                              : detail::natural_backend(device);
    Backend current = wanted;
    for (;;) {
      const Refusal why = refusal(current, args, device);
      if (!why) {
        impls_.at(current).impl(args, options);
        return current;
      }
      if (current == Backend::reference) detail::no_backend(name_, *why);
      if (!fallback_enabled())
        detail::no_backend(name_, std::string(backend_name(current)) + ": " + *why + " (fallback disabled)");
      detail::warn_fallback_once(name_, current, Backend::reference, *why);
      current = Backend::reference;
    }
  }

 private:
  struct Entry { Impl impl; Check check; };

  Refusal refusal(Backend b, const Args& args, Device device) const {
    auto it = impls_.find(b);
    if (it == impls_.end()) return std::string("no ") + std::string(backend_name(b)) + " implementation";
    if (b == Backend::tile_cuda) {
      if (!built_with_cuda()) return std::string("tessera was built without CUDA");
      if (!device.is_cuda()) return "the tensors are on " + device.str() + ", not a CUDA device";
    }
    if (b == Backend::tile_host && !device.is_cpu()) return "the tensors are on " + device.str() + ", not the CPU";
    if (it->second.check) return it->second.check(args);
    return std::nullopt;
  }

  std::string name_;
  std::map<Backend, Entry> impls_;
};

}  // namespace tessera::dispatch
