// A CUDA graph: the work issued on one stream between begin_capture() and end_capture(), replayed by launch().
// Without CUDA (or on a build without it) every call is an `unsupported` error.
#pragma once
#include "tessera/runtime/device.h"

namespace tessera {

class CudaGraph {
 public:
  CudaGraph() = default;
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Starts capturing `stream` (not the default stream): work issued on it is recorded, not run.
  void begin_capture(StreamHandle stream);
  // Ends the capture and instantiates the graph.
  void end_capture();
  // Ends a capture that failed part way, keeping nothing, and clears the CUDA error it left.
  void abandon_capture() noexcept;
  // Runs the captured work on `stream`.
  void launch(StreamHandle stream) const;
  bool ready() const { return exec_ != nullptr; }

 private:
  StreamHandle stream_ = nullptr;
  void* graph_ = nullptr;  // cudaGraph_t
  void* exec_ = nullptr;   // cudaGraphExec_t
};

}  // namespace tessera
