// Running a model: the paged KV cache, the buffers of a step (allocated once), and the forward over a batch of
// sequences' new tokens.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "tessera/engine/model.h"
#include "tessera/ops/attention.h"
#include "tessera/runtime/cuda_graph.h"
#include "tessera/runtime/host_buffer.h"

namespace tessera::engine {

// Sizes fixed when the cache and the step buffers are made.
struct RunLimits {
  int max_batch = 1;      // sequences in one step (and sequence slots in the cache)
  int max_tokens = 512;   // new tokens in one step, all sequences together (a prefill's prompt tokens)
  int max_seq_len = 0;    // tokens one sequence may hold; 0: the config's max_position_embeddings, capped at 4096
  int page_size = 16;     // token slots per KV page
  int num_pages = 0;      // 0: enough for max_batch sequences of max_seq_len
};

// K and V of every layer in pages of page_size tokens: layers[l].k_pages [num_pages, page_size, Hkv, D].
// Pages are handed to sequences as they grow and come back when a sequence is reset.
struct PagedKvCache {
  int page_size = 0, num_pages = 0, max_pages_per_seq = 0, max_seq_len = 0;
  std::vector<ops::KvCache> layers;       // block_table is set per step (a view of StepBuffers::inputs)
  std::vector<std::vector<int>> pages;    // per sequence slot: its pages, in order
  std::vector<int> seq_len;               // per sequence slot: tokens cached
  std::vector<int> free_pages;
};

// Device buffers of one step, sized for RunLimits; views of their leading rows are taken per step.
struct StepBuffers {
  RunLimits limits;
  // The CUDA stream every op of a step is issued on (nullptr: the default stream). The step synchronises it
  // before reading the logits back.
  StreamHandle stream = nullptr;
  // The step's small inputs: cache slots (i64), token ids, positions, cu_seqlens [B + 1], seq_lens [B], the row
  // of each sequence's last token, and the block table rows [B, table_width] of the step's sequences. Packed
  // back to back (each at a 16-byte boundary) in a page-locked host buffer and sent in one copy queued on the
  // step's stream, into `inputs` on the device: a step of given T and B always finds each at the same place,
  // so a captured decode graph reads the new step's values.
  Tensor inputs;                     // device bytes (u8), sized for max_tokens and max_batch
  HostBuffer<uint8_t> host_inputs;   // the same size, page-locked for a CUDA model
  int64_t table_width = 0;           // block table entries per sequence
  bool inputs_in_flight = false;     // a queued copy may still be reading host_inputs (until the step's end)
  // Activations (device, compute dtype). qkv holds [q | k | v] per token, or (models with q/k norms) three
  // contiguous blocks q [T, Hq*D], k [T, Hkv*D], v [T, Hkv*D] one after the other.
  Tensor x, xn, qkv, attn, mlp_in, mlp_act, positional, last_hidden, last_normed;
  Tensor logits;                   // [max_batch, vocab] f32 on the device
  HostBuffer<float> host_logits;   // [batch, vocab] of the last step, on the host (StepResult::logits)
  Tensor next_tokens;              // [max_batch] i32 on the device: each row's greedy token
  HostBuffer<int32_t> host_tokens;  // [batch] of the last step, on the host (StepResult::greedy_tokens)
  // The inputs as plan_step lays them out (capacity reserved once), before they are packed into host_inputs.
  std::vector<int32_t> h_ids, h_positions, h_cu, h_lens, h_last, h_table;
  std::vector<int64_t> h_slots;
  // Decode steps replayed as CUDA graphs (see enable_cuda_graphs): one graph per batch size, captured on the
  // second decode step of that size (the first runs eagerly, so every op has sized its scratch buffers).
  bool use_cuda_graphs = false;
  std::shared_ptr<Stream> own_stream;
  struct DecodeGraph {
    int eager_runs = 0;
    std::shared_ptr<CudaGraph> graph;
    uint64_t workspace_generation = 0;  // at the capture (a workspace grown since: captured again)
  };
  std::map<int64_t, DecodeGraph> decode_graphs;
};

PagedKvCache make_kv_cache(const Model& model, const RunLimits& limits);
StepBuffers make_step_buffers(const Model& model, const RunLimits& limits);
// Runs the steps on a stream of their own and replays decode steps of one token per sequence as CUDA graphs:
// the embedding, layers, final norm and lm_head of a decode step are captured once per batch size and then
// launched as one graph (the inputs live in the fixed step buffers, so a replay reads the new step's ids and
// positions).
// CUDA models only (an unsupported error otherwise). If a capture fails, the steps fall back to eager launches
// with a warning.
void enable_cuda_graphs(const Model& model, StepBuffers& buffers);

// Forgets sequence `slot`'s tokens and returns its pages.
void reset_sequence(PagedKvCache& cache, int slot);

// New tokens of one sequence: they follow the cache's tokens of that slot.
struct SequenceTokens {
  int slot = 0;
  std::span<const int> tokens;
};

// What a step brings back to the host: every sequence's logits row (for any sampler), or only each row's
// greedy token, chosen on the device (a few bytes instead of batch x vocab floats).
enum class StepResult { logits, greedy_tokens };

// Runs the model on the new tokens of each listed sequence, appends their K and V to the cache, and leaves the
// logits after each sequence's last new token in buffers.logits[i]; then, as `result` asks, copies them to
// buffers.host_logits[i * vocab ...] or writes their argmax (the smallest index of the largest logit) to
// buffers.host_tokens[i].
// Two kinds of step: a prefill (every listed sequence is empty in the cache; attention over the new tokens,
// fmha_varlen) and a decode (each sequence brings the same number, 1 to 8, of tokens; fmha_decode over the
// cache). Anything else is an unsupported error.
void forward(const Model& model, PagedKvCache& cache, StepBuffers& buffers, std::span<const SequenceTokens> batch,
             StepResult result = StepResult::logits);

}  // namespace tessera::engine
