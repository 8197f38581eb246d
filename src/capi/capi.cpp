// The C API: argument conversion, and every C++ exception turned into a status and a last-error message.
#include "tessera.h"

#include <string>

#include "tessera/ops/ops.h"

namespace {

using namespace tessera;

thread_local std::string g_last_error;

tessera_status fail_with(Status s, const std::string& message) {
  g_last_error = message;
  return tessera_status(s);
}

// Runs f, converting exceptions into a status.
template <class F>
tessera_status guarded(F&& f) {
  try {
    f();
    return TESSERA_OK;
  } catch (const Error& e) {
    return fail_with(e.status(), e.what());
  } catch (const std::bad_alloc&) {
    return fail_with(Status::internal, "out of memory");
  } catch (const std::exception& e) {
    return fail_with(Status::internal, e.what());
  }
}

Tensor to_tensor(const tessera_tensor* t, const char* op, const char* name) {
  // Named only when something is wrong: a message built for every tensor of every call costs microseconds.
  const auto who = [&] { return std::string(op) + ": " + name; };
  if (!t) invalid_argument(who() + " is NULL");
  if (!is_valid_dtype(t->dtype)) invalid_argument(who() + " has an invalid dtype " + std::to_string(t->dtype));
  if (t->device != TESSERA_CPU && t->device != TESSERA_CUDA)
    invalid_argument(who() + " has an invalid device " + std::to_string(t->device));
  if (t->ndim < 0 || t->ndim > TESSERA_MAX_DIMS) invalid_argument(who() + " has ndim " + std::to_string(t->ndim));
  if (t->ndim > 0 && !t->shape) invalid_argument(who() + " has a NULL shape");
  if (t->device_index < 0) invalid_argument(who() + " has a negative device index");
  Shape shape(t->shape, t->shape + t->ndim), strides;
  for (int64_t d : shape)
    if (d < 0) invalid_argument(who() + " has a negative dimension in shape " + shape_str(shape));
  if (t->strides) strides.assign(t->strides, t->strides + t->ndim);
  const Device device = t->device == TESSERA_CPU ? Device::cpu() : Device::cuda(t->device_index);
  if (!t->data) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    if (n != 0) invalid_argument(who() + " has NULL data");
  }
  return Tensor::view(t->data, shape, DType(t->dtype), device, strides);
}

dispatch::Options to_options(const tessera_options* o) {
  dispatch::Options out;
  if (!o) return out;
  if (o->backend != TESSERA_BACKEND_DEFAULT) {
    if (o->backend < 0 || o->backend > TESSERA_BACKEND_REFERENCE)
      invalid_argument("options: invalid backend " + std::to_string(o->backend));
    out.backend = dispatch::Backend(o->backend);
  }
  out.stream = o->stream;
  return out;
}

}  // namespace

extern "C" {

const char* tessera_version(void) { return "0.1.0"; }
const char* tessera_last_error(void) { return g_last_error.c_str(); }
int32_t tessera_cuda_device_count(void) {
  try { return cuda_device_count(); } catch (...) { return 0; }
}

tessera_status tessera_set_backend(const char* name) {
  return guarded([&] {
    if (!name) { dispatch::set_backend(std::nullopt); return; }
    auto b = dispatch::backend_from_name(name);
    if (!b) invalid_argument(std::string("set_backend: '") + name + "' is not a backend (tile-cuda, tile-host, reference)");
    dispatch::set_backend(b);
  });
}

tessera_status tessera_set_fallback(int32_t enabled) {
  return guarded([&] { dispatch::set_fallback_enabled(enabled != 0); });
}

tessera_status tessera_rms_norm(const tessera_tensor* x, const tessera_tensor* weight, const tessera_tensor* y,
                                float eps, const tessera_options* options) {
  return guarded([&] {
    const char* op = "rms_norm";
    ops::rms_norm(to_tensor(x, op, "x"), to_tensor(weight, op, "weight"), to_tensor(y, op, "y"), eps, to_options(options));
  });
}

tessera_status tessera_rms_norm_residual(const tessera_tensor* x, const tessera_tensor* residual,
                                         const tessera_tensor* residual_out, const tessera_tensor* weight,
                                         const tessera_tensor* y, float eps, const tessera_options* options) {
  return guarded([&] {
    const char* op = "rms_norm_residual";
    ops::rms_norm_residual(to_tensor(x, op, "x"), to_tensor(residual, op, "residual"),
                           to_tensor(residual_out, op, "residual_out"), to_tensor(weight, op, "weight"),
                           to_tensor(y, op, "y"), eps, to_options(options));
  });
}

tessera_status tessera_layer_norm(const tessera_tensor* x, const tessera_tensor* weight, const tessera_tensor* bias,
                                  const tessera_tensor* y, float eps, const tessera_options* options) {
  return guarded([&] {
    const char* op = "layer_norm";
    ops::layer_norm(to_tensor(x, op, "x"), to_tensor(weight, op, "weight"), to_tensor(bias, op, "bias"),
                    to_tensor(y, op, "y"), eps, to_options(options));
  });
}

tessera_status tessera_softmax(const tessera_tensor* x, const tessera_tensor* y, float scale,
                               const tessera_options* options) {
  return guarded([&] {
    ops::softmax(to_tensor(x, "softmax", "x"), to_tensor(y, "softmax", "y"), scale, to_options(options));
  });
}

tessera_status tessera_argmax(const tessera_tensor* x, const tessera_tensor* out, const tessera_options* options) {
  return guarded([&] { ops::argmax(to_tensor(x, "argmax", "x"), to_tensor(out, "argmax", "out"), to_options(options)); });
}

tessera_status tessera_gelu(const tessera_tensor* x, const tessera_tensor* y, int32_t approx,
                            const tessera_options* options) {
  return guarded([&] {
    if (approx != 0 && approx != 1) invalid_argument("gelu: approx must be 0 (erf) or 1 (tanh), got " + std::to_string(approx));
    ops::gelu(to_tensor(x, "gelu", "x"), to_tensor(y, "gelu", "y"), ops::GeluApprox(approx), to_options(options));
  });
}

tessera_status tessera_silu_and_mul(const tessera_tensor* x, const tessera_tensor* y, const tessera_options* options) {
  return guarded([&] {
    ops::silu_and_mul(to_tensor(x, "silu_and_mul", "x"), to_tensor(y, "silu_and_mul", "y"), to_options(options));
  });
}

tessera_status tessera_rope(const tessera_tensor* x, const tessera_tensor* positions, const tessera_tensor* inv_freq,
                            const tessera_tensor* y, int32_t layout, int64_t rotary_dim,
                            const tessera_options* options) {
  return guarded([&] {
    if (layout != 0 && layout != 1) invalid_argument("rope: layout must be 0 (neox) or 1 (interleaved), got " + std::to_string(layout));
    const char* op = "rope";
    ops::rope(to_tensor(x, op, "x"), to_tensor(positions, op, "positions"), to_tensor(inv_freq, op, "inv_freq"),
              to_tensor(y, op, "y"), ops::RopeLayout(layout), rotary_dim, to_options(options));
  });
}

tessera_status tessera_embedding(const tessera_tensor* ids, const tessera_tensor* table, const tessera_tensor* y,
                                 const tessera_options* options) {
  return guarded([&] {
    const char* op = "embedding";
    ops::embedding(to_tensor(ids, op, "ids"), to_tensor(table, op, "table"), to_tensor(y, op, "y"), to_options(options));
  });
}

tessera_status tessera_matmul(const tessera_tensor* a, const tessera_tensor* b, const tessera_tensor* c, int32_t b_layout,
                              const tessera_tensor* bias, int32_t activation, float alpha,
                              const tessera_tensor* residual, const tessera_options* options) {
  return guarded([&] {
    const char* op = "matmul";
    if (b_layout != 0 && b_layout != 1) invalid_argument("matmul: b_layout must be 0 ([N, K]) or 1 ([K, N]), got " + std::to_string(b_layout));
    if (activation < 0 || activation > 4) invalid_argument("matmul: invalid activation " + std::to_string(activation));
    ops::Epilogue e;
    if (bias) e.bias = to_tensor(bias, op, "bias");
    if (residual) e.residual = to_tensor(residual, op, "residual");
    e.activation = ops::Activation(activation);
    e.alpha = alpha;
    ops::matmul(to_tensor(a, op, "a"), to_tensor(b, op, "b"), to_tensor(c, op, "c"), ops::BLayout(b_layout), e,
                to_options(options));
  });
}

tessera_status tessera_matmul_silu_and_mul(const tessera_tensor* a, const tessera_tensor* w, const tessera_tensor* c,
                                           const tessera_tensor* scratch, const tessera_options* options) {
  return guarded([&] {
    const char* op = "matmul_silu_and_mul";
    ops::matmul_silu_and_mul(to_tensor(a, op, "a"), to_tensor(w, op, "w"), to_tensor(c, op, "c"),
                             scratch ? to_tensor(scratch, op, "scratch") : Tensor(), to_options(options));
  });
}

tessera_status tessera_matmul_fp8(const tessera_tensor* a, const tessera_tensor* b, const tessera_tensor* c, float scale_a,
                                  float scale_b, const tessera_options* options) {
  return guarded([&] {
    const char* op = "matmul_fp8";
    ops::matmul_fp8(to_tensor(a, op, "a"), to_tensor(b, op, "b"), to_tensor(c, op, "c"), scale_a, scale_b,
                    to_options(options));
  });
}

tessera_status tessera_bmm(const tessera_tensor* a, const tessera_tensor* b, const tessera_tensor* c, int32_t b_layout,
                           const tessera_tensor* bias, int32_t activation, float alpha, const tessera_tensor* residual,
                           const tessera_options* options) {
  return guarded([&] {
    const char* op = "bmm";
    if (b_layout != 0 && b_layout != 1) invalid_argument("bmm: b_layout must be 0 ([B, N, K]) or 1 ([B, K, N]), got " + std::to_string(b_layout));
    if (activation < 0 || activation > 4) invalid_argument("bmm: invalid activation " + std::to_string(activation));
    ops::Epilogue e;
    if (bias) e.bias = to_tensor(bias, op, "bias");
    if (residual) e.residual = to_tensor(residual, op, "residual");
    e.activation = ops::Activation(activation);
    e.alpha = alpha;
    ops::bmm(to_tensor(a, op, "a"), to_tensor(b, op, "b"), to_tensor(c, op, "c"), ops::BLayout(b_layout), e,
             to_options(options));
  });
}

tessera_status tessera_group_gemm(const tessera_tensor* a, const tessera_tensor* b, const tessera_tensor* offsets,
                                  const tessera_tensor* c, const tessera_options* options) {
  return guarded([&] {
    const char* op = "group_gemm";
    ops::group_gemm(to_tensor(a, op, "a"), to_tensor(b, op, "b"), to_tensor(offsets, op, "offsets"),
                    to_tensor(c, op, "c"), to_options(options));
  });
}

tessera_status tessera_fmha(const tessera_tensor* q, const tessera_tensor* k, const tessera_tensor* v, const tessera_tensor* o,
                            const tessera_tensor* lse, float scale, int32_t causal, int64_t window_left, float softcap,
                            const tessera_options* options) {
  return guarded([&] {
    const char* op = "fmha";
    if (causal != 0 && causal != 1) invalid_argument("fmha: causal must be 0 or 1, got " + std::to_string(causal));
    ops::fmha(to_tensor(q, op, "q"), to_tensor(k, op, "k"), to_tensor(v, op, "v"), to_tensor(o, op, "o"),
              lse ? to_tensor(lse, op, "lse") : Tensor(), {scale, causal == 1, window_left, softcap}, to_options(options));
  });
}

tessera_status tessera_fmha_fp8(const tessera_tensor* q, const tessera_tensor* k, const tessera_tensor* v,
                                const tessera_tensor* o, const tessera_tensor* lse, float q_scale, float k_scale,
                                float v_scale, float scale, int32_t causal, int64_t window_left, float softcap,
                                const tessera_options* options) {
  return guarded([&] {
    const char* op = "fmha_fp8";
    if (causal != 0 && causal != 1) invalid_argument("fmha_fp8: causal must be 0 or 1, got " + std::to_string(causal));
    ops::fmha_fp8(to_tensor(q, op, "q"), to_tensor(k, op, "k"), to_tensor(v, op, "v"), to_tensor(o, op, "o"), q_scale,
                  k_scale, v_scale, lse ? to_tensor(lse, op, "lse") : Tensor(), {scale, causal == 1, window_left, softcap},
                  to_options(options));
  });
}

tessera_status tessera_fmha_backward(const tessera_tensor* q, const tessera_tensor* k, const tessera_tensor* v,
                                     const tessera_tensor* o, const tessera_tensor* d_o, const tessera_tensor* lse,
                                     const tessera_tensor* dq, const tessera_tensor* dk, const tessera_tensor* dv, float scale,
                                     int32_t causal, int64_t window_left, float softcap, const tessera_options* options) {
  return guarded([&] {
    const char* op = "fmha_backward";
    if (causal != 0 && causal != 1) invalid_argument("fmha_backward: causal must be 0 or 1, got " + std::to_string(causal));
    ops::fmha_backward(to_tensor(q, op, "q"), to_tensor(k, op, "k"), to_tensor(v, op, "v"), to_tensor(o, op, "o"),
                       to_tensor(d_o, op, "d_o"), to_tensor(lse, op, "lse"), to_tensor(dq, op, "dq"), to_tensor(dk, op, "dk"),
                       to_tensor(dv, op, "dv"), {scale, causal == 1, window_left, softcap}, to_options(options));
  });
}

tessera_status tessera_fmha_decode(const tessera_tensor* q, const tessera_tensor* k_pages, const tessera_tensor* v_pages,
                                   const tessera_tensor* block_table, const tessera_tensor* seq_lens, const tessera_tensor* o,
                                   float scale, int64_t window_left, float softcap, const tessera_options* options) {
  return guarded([&] {
    const char* op = "fmha_decode";
    const ops::KvCache cache{to_tensor(k_pages, op, "k_pages"), to_tensor(v_pages, op, "v_pages"),
                             block_table ? to_tensor(block_table, op, "block_table") : Tensor()};
    ops::fmha_decode(to_tensor(q, op, "q"), cache, to_tensor(seq_lens, op, "seq_lens"), to_tensor(o, op, "o"),
                     {scale, true, window_left, softcap}, to_options(options));
  });
}

tessera_status tessera_mla_decode(const tessera_tensor* q, const tessera_tensor* latent_pages, const tessera_tensor* block_table,
                                  const tessera_tensor* seq_lens, const tessera_tensor* o, float scale, int64_t window_left,
                                  float softcap, const tessera_options* options) {
  return guarded([&] {
    const char* op = "mla_decode";
    ops::mla_decode(to_tensor(q, op, "q"), to_tensor(latent_pages, op, "latent_pages"),
                    block_table ? to_tensor(block_table, op, "block_table") : Tensor(), to_tensor(seq_lens, op, "seq_lens"),
                    to_tensor(o, op, "o"), {scale, true, window_left, softcap}, to_options(options));
  });
}

}  // extern "C"
