// `tessera info`: what this build and machine offer.
#include <cstdio>

#include "apps/tessera/commands.h"
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/device.h"

namespace tessera::cli {

void add_info_command(CLI::App& app) {
  app.add_subcommand("info", "Build and device information")->callback([] {
    std::printf("tessera 0.1.0\n");
    std::printf("CUDA backend: %s\n", built_with_cuda() ? "built" : "not built");
    const int n = cuda_device_count();
    std::printf("CUDA devices: %d\n", n);
    // Which form of the kernels each device runs (TESSERA_HOPPER=0 turns the Hopper form off).
    for (int i = 0; i < n; ++i)
      std::printf("  cuda:%d %s, kernels: %s\n", i, cuda_device_name(i).c_str(),
                  cuda_hopper_kernels(i)    ? "Hopper (TMA, wgmma, staged pipelines)"
                  : cuda_sm80_pipelines(i) ? "sm_80 (cp.async staged pipelines, mma.sync)"
                                           : "generic (mma.sync, no staged pipelines)");
    const auto b = dispatch::global_backend();
    std::printf("backend: %s\n", b ? std::string(dispatch::backend_name(*b)).c_str() : "by device");
    std::printf("fallback: %s\n", dispatch::fallback_enabled() ? "warn" : "error");
  });
}

}  // namespace tessera::cli
