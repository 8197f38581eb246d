// The KV cache, the step buffers, and one forward step: host-side bookkeeping (pages, slots, positions),
// uploads of the step's small inputs, then the architecture's layers, attention and logits as op calls.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/model/step.h"
#include "tessera/ops/attention.h"
#include "tessera/ops/elementwise.h"
#include "tessera/ops/embedding.h"
#include "tessera/ops/matmul.h"
#include "tessera/ops/norm.h"
#include "tessera/ops/sampling.h"
#include "tessera/runtime/workspace.h"

namespace tessera::engine {

namespace {
// The leading `rows` rows of a buffer whose first dim is rows, reshaped to `shape` (contiguous).
Tensor rows_of(const Tensor& buffer, const Shape& shape) {
  return Tensor::view(buffer.data(), shape, buffer.dtype(), buffer.device());
}

// Where each of a step's inputs sits in StepBuffers::inputs (and host_inputs), in bytes: a function of the
// step's tokens T, sequences B and the block table's width alone.
struct InputLayout {
  size_t slots = 0, ids = 0, positions = 0, cu_seqlens = 0, seq_lens = 0, last_rows = 0, block_table = 0, bytes = 0;
};

InputLayout input_layout(int64_t T, int64_t B, int64_t table_width) {
  InputLayout l;
  const auto take = [&](int64_t count, size_t elem) {
    const size_t at = l.bytes;
    l.bytes += (size_t(count) * elem + 15) / 16 * 16;
    return at;
  };
  l.slots = take(T, sizeof(int64_t));
  l.ids = take(T, sizeof(int32_t));
  l.positions = take(T, sizeof(int32_t));
  l.cu_seqlens = take(B + 1, sizeof(int32_t));
  l.seq_lens = take(B, sizeof(int32_t));
  l.last_rows = take(B, sizeof(int32_t));
  l.block_table = take(B * table_width, sizeof(int32_t));
  return l;
}

template <class T>
void pack(const std::vector<T>& values, HostBuffer<uint8_t>& host, size_t at) {
  if (!values.empty()) std::memcpy(host.data() + at, values.data(), values.size() * sizeof(T));
}

int64_t qkv_features(const ModelConfig& c) { return int64_t(c.num_heads + 2 * c.num_kv_heads) * c.head_dim; }
}  // namespace

PagedKvCache make_kv_cache(const Model& model, const RunLimits& limits) {
  const ModelConfig& c = model.config;
  check(limits.max_batch > 0 && limits.page_size > 0, "kv cache: max_batch and page_size must be positive");
  PagedKvCache cache;
  cache.page_size = limits.page_size;
  cache.max_seq_len = limits.max_seq_len > 0 ? limits.max_seq_len : std::min(c.max_position_embeddings > 0 ? c.max_position_embeddings : 4096, 4096);
  cache.max_pages_per_seq = (cache.max_seq_len + cache.page_size - 1) / cache.page_size;
  cache.num_pages = limits.num_pages > 0 ? limits.num_pages : limits.max_batch * cache.max_pages_per_seq;
  const Shape page_shape{cache.num_pages, cache.page_size, c.num_kv_heads, c.head_dim};
  for (int l = 0; l < c.num_layers; ++l)
    cache.layers.push_back({Tensor::empty(page_shape, model.dtype, model.device), Tensor::empty(page_shape, model.dtype, model.device), {}});
  cache.pages.assign(size_t(limits.max_batch), {});
  cache.seq_len.assign(size_t(limits.max_batch), 0);
  for (int p = cache.num_pages - 1; p >= 0; --p) cache.free_pages.push_back(p);
  return cache;
}

void reset_sequence(PagedKvCache& cache, int slot) {
  check(slot >= 0 && slot < int(cache.seq_len.size()), "kv cache: sequence slot " + std::to_string(slot) + " out of range");
  for (int p : cache.pages[size_t(slot)]) cache.free_pages.push_back(p);
  cache.pages[size_t(slot)].clear();
  cache.seq_len[size_t(slot)] = 0;
}

StepBuffers make_step_buffers(const Model& model, const RunLimits& limits) {
  const ModelConfig& c = model.config;
  const Device dev = model.device;
  const DType dt = model.dtype;
  const int64_t T = limits.max_tokens, B = limits.max_batch, H = c.hidden_size;
  check(T > 0 && B > 0, "step buffers: max_tokens and max_batch must be positive");
  StepBuffers b;
  b.limits = limits;
  const int max_seq = limits.max_seq_len > 0 ? limits.max_seq_len : std::min(c.max_position_embeddings > 0 ? c.max_position_embeddings : 4096, 4096);
  const int64_t pages_per_seq = (max_seq + limits.page_size - 1) / limits.page_size;
  b.table_width = pages_per_seq;
  // Sized for the largest step; a step of fewer tokens or sequences packs its inputs closer together.
  const size_t input_bytes = input_layout(T, B, pages_per_seq).bytes;
  b.inputs = Tensor::empty({int64_t(input_bytes)}, DType::u8, dev);
  b.host_inputs = HostBuffer<uint8_t>(input_bytes, dev);
  b.x = Tensor::empty({T, H}, DType::f32, dev);
  b.xn = Tensor::empty({T, H}, dt, dev);
  b.qkv = Tensor::empty({T, qkv_features(c)}, dt, dev);
  b.attn = Tensor::empty({T, int64_t(c.num_heads) * c.head_dim}, dt, dev);
  const int64_t mlp_width = c.arch == Arch::gpt2 ? c.intermediate_size : 2 * int64_t(c.intermediate_size);
  b.mlp_in = Tensor::empty({T, mlp_width}, dt, dev);
  b.mlp_act = Tensor::empty({T, int64_t(c.intermediate_size)}, dt, dev);
  if (c.arch == Arch::gpt2) b.positional = Tensor::empty({T, H}, DType::f32, dev);
  b.last_hidden = Tensor::empty({B, H}, DType::f32, dev);
  b.last_normed = Tensor::empty({B, H}, dt, dev);
  b.logits = Tensor::empty({B, int64_t(c.vocab_size)}, DType::f32, dev);
  b.host_logits = HostBuffer<float>(size_t(B) * size_t(c.vocab_size), dev);
  b.next_tokens = Tensor::empty({B}, DType::i32, dev);
  b.host_tokens = HostBuffer<int32_t>(size_t(B), dev);
  b.h_ids.reserve(size_t(T));
  b.h_positions.reserve(size_t(T));
  b.h_slots.reserve(size_t(T));
  b.h_cu.reserve(size_t(B + 1));
  b.h_lens.reserve(size_t(B));
  b.h_last.reserve(size_t(B));
  b.h_table.reserve(size_t(B * pages_per_seq));
  return b;
}

void embed_f32(const Tensor& ids, const Tensor& table, const Tensor& out, const Tensor& scratch, const ops::Options& opt) {
  if (table.dtype() == DType::f32) {
    ops::embedding(ids, table, out, opt);
    return;
  }
  ops::embedding(ids, table, scratch, opt);
  ops::cast(scratch, out, opt);
}

// Whether the GPU kernels may start on what the kernel before them does not write, before it ends:
// decode attention on the older cache rows (KvCache::older_tokens_settled; the layers append right before they
// attend), the projections on the model's weights (Options::weights_settled). TESSERA_DECODE_EARLY_START=0 and
// TESSERA_WEIGHTS_EARLY=0 turn them off, to measure what they gain.
static bool enabled_unless_zero(const char* variable) {
  const char* v = std::getenv(variable);
  return v == nullptr || std::string(v) != "0";
}
static bool decode_starts_early() {
  static const bool enabled = enabled_unless_zero("TESSERA_DECODE_EARLY_START");
  return enabled;
}
static bool weights_read_early() {
  static const bool enabled = enabled_unless_zero("TESSERA_WEIGHTS_EARLY");
  return enabled;
}

void attention(const Model& model, const PagedKvCache& cache, const Step& s, int layer) {
  const ModelConfig& c = model.config;
  ops::KvCache kv = cache.layers[size_t(layer)];
  ops::AttentionParams params;
  params.causal = true;
  if (c.sliding_window > 0) params.window_left = c.sliding_window - 1;  // a token sees itself and window - 1 before
  const int64_t Hq = c.num_heads, D = c.head_dim;
  if (s.decode) {
    kv.block_table = s.block_table;
    kv.older_tokens_settled = decode_starts_early();  // the layer appended this step's tokens just before
    const int64_t per_seq = s.tokens / s.batch;
    const Tensor q4 = Tensor::view(s.q.data(), {s.batch, per_seq, Hq, D}, s.q.dtype(), s.q.device(),
                                   {per_seq * s.q.stride(0), s.q.stride(0), s.q.stride(1), 1});
    const Tensor o4 = Tensor::view(s.attn.data(), {s.batch, per_seq, Hq, D}, s.attn.dtype(), s.attn.device());
    ops::fmha_decode(q4, kv, s.seq_lens, o4, params, s.opt);
  } else {
    const Tensor o3 = Tensor::view(s.attn.data(), {s.tokens, Hq, D}, s.attn.dtype(), s.attn.device());
    ops::fmha_varlen(s.q, s.k, s.v, s.cu_seqlens, s.cu_seqlens, o3, {}, params, s.opt);
  }
}

void logits_of_last_tokens(const Model& model, const Step& s, StepBuffers& b) {
  const Weights& w = model.weights;
  const int64_t H = model.config.hidden_size;
  // A decode step's rows are already one per sequence; a prefill gathers each sequence's last row.
  Tensor last = s.x;
  if (!s.decode || s.tokens != s.batch) {
    last = rows_of(b.last_hidden, {s.batch, H});
    ops::embedding(s.last_rows, s.x, last, s.opt);
  }
  const Tensor normed = rows_of(b.last_normed, {s.batch, H});
  if (model.config.arch == Arch::gpt2) ops::layer_norm(last, w.final_norm, w.final_norm_bias, normed, model.config.norm_eps, s.opt);
  else ops::rms_norm(last, w.final_norm, normed, model.config.norm_eps, s.opt);
  const Tensor logits = rows_of(b.logits, {s.batch, int64_t(model.config.vocab_size)});
  ops::matmul(normed, w.lm_head.weight, logits, ops::BLayout::nk, epilogue(w.lm_head.bias), s.opt);
}

namespace {
// Checks a step before anything changes; returns whether it is a decode step (else a prefill).
bool validate_step(const ModelConfig& c, const PagedKvCache& cache, const StepBuffers& b, std::span<const SequenceTokens> batch) {
  const int64_t B = int64_t(batch.size());
  check(B > 0, "forward: empty batch");
  check(B <= b.limits.max_batch, "forward: " + std::to_string(B) + " sequences exceed max_batch " + std::to_string(b.limits.max_batch));
  // Which kind of step: all sequences new (prefill) or all bringing the same few tokens (decode).
  bool all_new = true, same_few = true;
  for (const auto& seq : batch) {
    check(seq.slot >= 0 && seq.slot < int(cache.seq_len.size()), "forward: sequence slot " + std::to_string(seq.slot) + " out of range");
    check(!seq.tokens.empty(), "forward: sequence slot " + std::to_string(seq.slot) + " brings no tokens");
    for (int id : seq.tokens)
      if (id < 0 || id >= c.vocab_size)
        invalid_argument("forward: token id " + std::to_string(id) + " is outside the vocabulary [0, " + std::to_string(c.vocab_size) + ")");
    const int end = cache.seq_len[size_t(seq.slot)] + int(seq.tokens.size());
    if (end > cache.max_seq_len)
      invalid_argument("forward: sequence slot " + std::to_string(seq.slot) + " would hold " + std::to_string(end) +
                       " tokens; the cache holds at most " + std::to_string(cache.max_seq_len));
    if (c.arch == Arch::gpt2 && end > c.max_position_embeddings)
      invalid_argument("forward: GPT-2 has " + std::to_string(c.max_position_embeddings) + " positions; a sequence would reach " + std::to_string(end));
    all_new = all_new && cache.seq_len[size_t(seq.slot)] == 0;
    same_few = same_few && seq.tokens.size() == batch[0].tokens.size() && seq.tokens.size() <= 8;
  }
  for (size_t i = 0; i < batch.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      check(batch[i].slot != batch[j].slot, "forward: sequence slot " + std::to_string(batch[i].slot) + " appears twice in one step");
  int64_t new_tokens = 0;
  for (const auto& seq : batch) new_tokens += int64_t(seq.tokens.size());
  check(new_tokens <= b.limits.max_tokens,
        "forward: " + std::to_string(new_tokens) + " tokens exceed max_tokens " + std::to_string(b.limits.max_tokens));
  // Pages this step takes, before anything changes.
  size_t pages_needed = 0;
  for (const auto& seq : batch) {
    const int have = int(cache.pages[size_t(seq.slot)].size());
    const int want = (cache.seq_len[size_t(seq.slot)] + int(seq.tokens.size()) + cache.page_size - 1) / cache.page_size;
    pages_needed += size_t(std::max(0, want - have));
  }
  if (pages_needed > cache.free_pages.size()) unsupported("forward: the KV cache is out of pages");
  if (!all_new && !same_few)
    unsupported("forward: a step must be a prefill of new sequences or a decode of 1 to 8 tokens per sequence");
  return !all_new;

}

// Host bookkeeping of a step: ids, positions, cache slots (taking pages as sequences grow), cu_seqlens,
// sequence lengths, last rows and block table, staged in b.h_* .
void plan_step(PagedKvCache& cache, StepBuffers& b, std::span<const SequenceTokens> batch) {
  b.h_ids.clear(); b.h_positions.clear(); b.h_slots.clear(); b.h_cu.clear(); b.h_lens.clear(); b.h_last.clear(); b.h_table.clear();
  b.h_cu.push_back(0);
  const int64_t table_width = b.table_width;
  for (const auto& seq : batch) {
    const size_t slot = size_t(seq.slot);
    const int start = cache.seq_len[slot], n = int(seq.tokens.size());
    for (int i = 0; i < n; ++i) {
      const int pos = start + i;
      if (pos / cache.page_size >= int(cache.pages[slot].size())) {
        if (cache.free_pages.empty()) unsupported("forward: the KV cache is out of pages");
        cache.pages[slot].push_back(cache.free_pages.back());
        cache.free_pages.pop_back();
      }
      b.h_ids.push_back(seq.tokens[size_t(i)]);
      b.h_positions.push_back(pos);
      b.h_slots.push_back(int64_t(cache.pages[slot][size_t(pos / cache.page_size)]) * cache.page_size + pos % cache.page_size);
    }
    cache.seq_len[slot] = start + n;
    b.h_cu.push_back(b.h_cu.back() + n);
    b.h_lens.push_back(start + n);
    b.h_last.push_back(b.h_cu.back() - 1);
    for (int64_t p = 0; p < table_width; ++p)
      b.h_table.push_back(p < int64_t(cache.pages[slot].size()) ? cache.pages[slot][size_t(p)] : 0);
  }
}

// Sends the staged inputs to the device in one copy queued on the step's stream (the host does not wait for
// it) and returns this step's views of the step buffers.
Step step_views(const Model& model, StepBuffers& b, int64_t B, bool decode) {
  const ModelConfig& c = model.config;
  const int64_t T = int64_t(b.h_ids.size()), table_width = b.table_width;
  const InputLayout l = input_layout(T, B, table_width);
  check(l.bytes <= b.host_inputs.size(), "forward: a step's inputs outgrew their buffer");
  // A step that threw after its upload was queued may have left the copy reading host_inputs.
  if (b.inputs_in_flight && model.device.is_cuda()) synchronize(model.device);
  pack(b.h_slots, b.host_inputs, l.slots);
  pack(b.h_ids, b.host_inputs, l.ids);
  pack(b.h_positions, b.host_inputs, l.positions);
  pack(b.h_cu, b.host_inputs, l.cu_seqlens);
  pack(b.h_lens, b.host_inputs, l.seq_lens);
  pack(b.h_last, b.host_inputs, l.last_rows);
  pack(b.h_table, b.host_inputs, l.block_table);
  copy_bytes_async(b.inputs.data(), model.device, b.host_inputs.data(), Device::cpu(), l.bytes, b.stream);
  b.inputs_in_flight = true;
  auto* base = static_cast<uint8_t*>(b.inputs.data());
  const auto input = [&](size_t at, const Shape& shape, DType dtype) { return Tensor::view(base + at, shape, dtype, model.device); };

  Step s;
  s.tokens = T;
  s.batch = B;
  s.decode = decode;
  s.opt.stream = b.stream;
  s.opt.weights_settled = weights_read_early();  // every matmul of a step multiplies by the model's weights
  s.opt.ids_in_range = true;  // token ids checked by validate_step, last rows made here: no round trip a gather
  s.ids = input(l.ids, {T}, DType::i32);
  s.positions = input(l.positions, {T}, DType::i32);
  s.slots = input(l.slots, {T}, DType::i64);
  s.cu_seqlens = input(l.cu_seqlens, {B + 1}, DType::i32);
  s.seq_lens = input(l.seq_lens, {B}, DType::i32);
  s.last_rows = input(l.last_rows, {B}, DType::i32);
  s.block_table = input(l.block_table, {B, table_width}, DType::i32);
  const int64_t H = c.hidden_size, D = c.head_dim, Hq = c.num_heads, Hkv = c.num_kv_heads;
  s.x = rows_of(b.x, {T, H});
  s.xn = rows_of(b.xn, {T, H});
  const DType dt = model.dtype;
  const Device dev = model.device;
  if (c.qk_norm) {
    // Three contiguous blocks, so q and k can be normalised per head (rms_norm needs rows that fold).
    auto* base = static_cast<uint8_t*>(b.qkv.data());
    const size_t elem = dtype_size(dt);
    s.q2 = Tensor::view(base, {T, Hq * D}, dt, dev);
    s.k2 = Tensor::view(base + size_t(T * Hq * D) * elem, {T, Hkv * D}, dt, dev);
    s.v2 = Tensor::view(base + size_t(T * (Hq + Hkv) * D) * elem, {T, Hkv * D}, dt, dev);
    s.q = s.q2.reshape({T, Hq, D});
    s.k = s.k2.reshape({T, Hkv, D});
    s.v = s.v2.reshape({T, Hkv, D});
  } else {
    s.qkv = rows_of(b.qkv, {T, qkv_features(c)});
    const ops::QkvHeads heads = ops::qkv_heads(s.qkv, Hq, Hkv, D);
    s.q = heads.q;
    s.k = heads.k;
    s.v = heads.v;
  }
  s.attn = rows_of(b.attn, {T, Hq * D});
  s.mlp_in = rows_of(b.mlp_in, {T, b.mlp_in.size(1)});
  s.mlp_act = rows_of(b.mlp_act, {T, b.mlp_act.size(1)});
  if (b.positional.defined() && b.positional.numel() > 0) s.positional = rows_of(b.positional, {T, H});

  return s;
}

}  // namespace

void enable_cuda_graphs(const Model& model, StepBuffers& b) {
  if (!model.device.is_cuda()) unsupported("forward: CUDA graphs need a model on a CUDA device, not " + model.device.str());
  if (!b.own_stream) b.own_stream = std::make_shared<Stream>(model.device);
  b.stream = b.own_stream->handle();
  b.use_cuda_graphs = true;
}

namespace {
// A step's embedding, layers, final norm and lm_head. The ids were checked on the host (validate_step): in a
// graph the embedding cannot check them itself.
void embedding_layers_and_logits(const Model& model, const PagedKvCache& cache, const Step& s, StepBuffers& b) {
  if (model.config.arch == Arch::gpt2) {
    gpt2_embed(model, s);
    gpt2_layers(model, cache, s);
  } else {
    llama_embed(model, s);
    llama_layers(model, cache, s);
  }
  logits_of_last_tokens(model, s, b);
}

// A decode step as a CUDA graph for its batch size: eager the first time, captured the second,
// replayed from then on. A graph holds the ops' workspace pointers: when any workspace has grown since its
// capture (another batch size's step, a prefill), the old memory is freed, so it starts over.
void graphed_step(const Model& model, const PagedKvCache& cache, const Step& s, StepBuffers& b) {
  StepBuffers::DecodeGraph& entry = b.decode_graphs[s.batch];
  if (entry.graph && entry.workspace_generation != workspace_generation()) entry = {};
  if (!entry.graph) {
    if (entry.eager_runs++ == 0) {
      embedding_layers_and_logits(model, cache, s, b);
      return;
    }
    auto graph = std::make_shared<CudaGraph>();
    try {
      graph->begin_capture(b.stream);
      embedding_layers_and_logits(model, cache, s, b);
      graph->end_capture();
    } catch (const Error& e) {
      graph->abandon_capture();
      b.use_cuda_graphs = false;
      std::fprintf(stderr, "tessera: warning: capturing a decode step as a CUDA graph failed (%s); running eagerly\n", e.what());
      embedding_layers_and_logits(model, cache, s, b);
      return;
    }
    entry.graph = std::move(graph);
    entry.workspace_generation = workspace_generation();
  }
  entry.graph->launch(b.stream);
}
}  // namespace

void forward(const Model& model, PagedKvCache& cache, StepBuffers& b, std::span<const SequenceTokens> batch, StepResult result) {
  const bool decode = validate_step(model.config, cache, b, batch);
  plan_step(cache, b, batch);
  const Step s = step_views(model, b, int64_t(batch.size()), decode);
  if (b.use_cuda_graphs && s.decode && s.tokens == s.batch) graphed_step(model, cache, s, b);
  else embedding_layers_and_logits(model, cache, s, b);
  if (result == StepResult::greedy_tokens)
    ops::argmax(rows_of(b.logits, {s.batch, int64_t(model.config.vocab_size)}), rows_of(b.next_tokens, {s.batch}), s.opt);
  // Queued after the step on its stream; returns when the result is on the host (page-locked buffers).
  if (result == StepResult::greedy_tokens)
    copy_bytes_after(b.host_tokens.data(), Device::cpu(), b.next_tokens.data(), b.next_tokens.device(), size_t(s.batch) * sizeof(int32_t), b.stream);
  else
    copy_bytes_after(b.host_logits.data(), Device::cpu(), b.logits.data(), b.logits.device(),
                     size_t(s.batch) * size_t(model.config.vocab_size) * sizeof(float), b.stream);
  b.inputs_in_flight = false;
}

}  // namespace tessera::engine
