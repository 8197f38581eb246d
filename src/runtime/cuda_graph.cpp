#include "tessera/runtime/cuda_graph.h"

#include "tessera/runtime/error.h"

#if TESSERA_WITH_CUDA
#include <cuda_runtime.h>
#include "tessera/runtime/cuda_check.h"
#endif

namespace tessera {

#if TESSERA_WITH_CUDA
CudaGraph::~CudaGraph() {
  if (exec_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
  if (graph_) cudaGraphDestroy(static_cast<cudaGraph_t>(graph_));
}

void CudaGraph::begin_capture(StreamHandle stream) {
  check(stream != nullptr, "CudaGraph: capture needs a stream other than the default stream");
  check(graph_ == nullptr && exec_ == nullptr, "CudaGraph: already captured");
  stream_ = stream;
  // Thread-local mode: other threads' CUDA calls are not affected by this capture.
  TESSERA_CUDA_CHECK(cudaStreamBeginCapture(static_cast<cudaStream_t>(stream), cudaStreamCaptureModeThreadLocal));
}

void CudaGraph::end_capture() {
  cudaGraph_t graph = nullptr;
  TESSERA_CUDA_CHECK(cudaStreamEndCapture(static_cast<cudaStream_t>(stream_), &graph));
  graph_ = graph;
  cudaGraphExec_t exec = nullptr;
  TESSERA_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  exec_ = exec;
}

void CudaGraph::abandon_capture() noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (stream_ && cudaStreamIsCapturing(static_cast<cudaStream_t>(stream_), &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    cudaGraph_t graph = nullptr;
    cudaStreamEndCapture(static_cast<cudaStream_t>(stream_), &graph);
    if (graph) cudaGraphDestroy(graph);
  }
  cudaGetLastError();
}

void CudaGraph::launch(StreamHandle stream) const {
  check(exec_ != nullptr, "CudaGraph: launch before a capture ended");
  TESSERA_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), static_cast<cudaStream_t>(stream)));
}
#else
CudaGraph::~CudaGraph() = default;
void CudaGraph::begin_capture(StreamHandle) { unsupported("CudaGraph: tessera was built without CUDA"); }
void CudaGraph::end_capture() { unsupported("CudaGraph: tessera was built without CUDA"); }
void CudaGraph::abandon_capture() noexcept {}
void CudaGraph::launch(StreamHandle) const { unsupported("CudaGraph: tessera was built without CUDA"); }
#endif

}  // namespace tessera
