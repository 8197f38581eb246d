/* tessera C API: a stable C ABI over raw pointers, shapes, dtypes and a stream.
 *
 * Every call returns a tessera_status (TESSERA_OK = 0). On failure, tessera_last_error() returns a message
 * naming the argument, shape or dtype at fault; it is per thread and stays valid until the thread's next
 * failing call. Bad input is reported before anything is written.
 *
 * Tensors are described DLPack-style: a data pointer, dtype, device, ndim, a shape array and an optional
 * strides array in elements (NULL means row-major contiguous). Enumerated values travel as int32_t so that
 * any value a caller passes is defined behaviour and an unknown one is a reported error.
 *
 * CUDA graphs: op calls on a stream may be captured into a CUDA graph. Scratch memory an op keeps (split-K
 * partial sums, split-KV attention partials) is grown beside the capture when the captured call needs more,
 * and memory a graph may read is not freed while it could be replayed. The autotuner does not time candidates
 * during a capture: it uses a cached choice or the heuristic, so run a call once before capturing it to capture
 * the tuned configuration. */
#ifndef TESSERA_H_
#define TESSERA_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t tessera_status;
#define TESSERA_OK 0
#define TESSERA_INVALID_ARGUMENT 1
#define TESSERA_UNSUPPORTED 2
#define TESSERA_CUDA_ERROR 3
#define TESSERA_IO_ERROR 4
#define TESSERA_INTERNAL 5

/* dtypes */
#define TESSERA_F32 0
#define TESSERA_F16 1
#define TESSERA_BF16 2
#define TESSERA_FP8_E4M3 3
#define TESSERA_FP8_E5M2 4
#define TESSERA_I32 5
#define TESSERA_I64 6
#define TESSERA_U8 7
#define TESSERA_BOOL 8

/* devices */
#define TESSERA_CPU 0
#define TESSERA_CUDA 1

/* backends (tessera_options.backend) */
#define TESSERA_BACKEND_DEFAULT (-1)
#define TESSERA_BACKEND_TILE_CUDA 0
#define TESSERA_BACKEND_TILE_HOST 1
#define TESSERA_BACKEND_REFERENCE 2

#define TESSERA_MAX_DIMS 8

typedef struct tessera_tensor {
  void* data;
  int32_t dtype;         /* TESSERA_F32 ... */
  int32_t device;        /* TESSERA_CPU or TESSERA_CUDA */
  int32_t device_index;  /* CUDA ordinal; 0 for the CPU */
  int32_t ndim;          /* 0 .. TESSERA_MAX_DIMS */
  const int64_t* shape;  /* ndim sizes */
  const int64_t* strides; /* ndim strides in elements, or NULL for row-major contiguous */
} tessera_tensor;

typedef struct tessera_options {
  int32_t backend; /* TESSERA_BACKEND_DEFAULT, or one backend for this call */
  void* stream;    /* cudaStream_t for CUDA tensors; NULL is the default stream */
} tessera_options;

/* Library facts. */
const char* tessera_version(void);
const char* tessera_last_error(void);
int32_t tessera_cuda_device_count(void);

/* The global backend ("tile-cuda", "tile-host", "reference"); NULL restores selection by device. */
tessera_status tessera_set_backend(const char* name);
/* 0 makes a fallback to another backend an error (as TESSERA_DISABLE_FALLBACK=1 does). */
tessera_status tessera_set_fallback(int32_t enabled);

/* Ops. `options` may be NULL. See include/tessera/ops/ for each op's contract. */
tessera_status tessera_rms_norm(const tessera_tensor* x, const tessera_tensor* weight, const tessera_tensor* y,
                                float eps, const tessera_options* options);
tessera_status tessera_rms_norm_residual(const tessera_tensor* x, const tessera_tensor* residual,
                                         const tessera_tensor* residual_out, const tessera_tensor* weight,
                                         const tessera_tensor* y, float eps, const tessera_options* options);
tessera_status tessera_layer_norm(const tessera_tensor* x, const tessera_tensor* weight, const tessera_tensor* bias,
                                  const tessera_tensor* y, float eps, const tessera_options* options);
tessera_status tessera_softmax(const tessera_tensor* x, const tessera_tensor* y, float scale,
                               const tessera_options* options);
/* approx: 0 = erf form, 1 = tanh approximation */
/* out[r] = index of the largest entry of row r of x (the smallest on ties; NaN ignored); out is i32 */
tessera_status tessera_argmax(const tessera_tensor* x, const tessera_tensor* out, const tessera_options* options);
tessera_status tessera_gelu(const tessera_tensor* x, const tessera_tensor* y, int32_t approx,
                            const tessera_options* options);
tessera_status tessera_silu_and_mul(const tessera_tensor* x, const tessera_tensor* y, const tessera_options* options);
/* layout: 0 = NeoX (rotate halves), 1 = interleaved pairs; rotary_dim 0 = the whole head */
tessera_status tessera_rope(const tessera_tensor* x, const tessera_tensor* positions, const tessera_tensor* inv_freq,
                            const tessera_tensor* y, int32_t layout, int64_t rotary_dim,
                            const tessera_options* options);
tessera_status tessera_embedding(const tessera_tensor* ids, const tessera_tensor* table, const tessera_tensor* y,
                                 const tessera_options* options);

/* c = alpha * act(a @ b + bias) + residual. b_layout: 0 = b is [N, K], 1 = b is [K, N]. bias and residual may
 * be NULL. activation: 0 none, 1 gelu (erf), 2 gelu (tanh), 3 silu, 4 relu. */
tessera_status tessera_matmul(const tessera_tensor* a, const tessera_tensor* b, const tessera_tensor* c, int32_t b_layout,
                              const tessera_tensor* bias, int32_t activation, float alpha,
                              const tessera_tensor* residual, const tessera_options* options);
/* SwiGLU's projection: c = silu(a @ Wg^T) * (a @ Wu^T), w = [Wg; Wu] [2I, K], c [..., I]; a, w, c one dtype.
 * scratch ([..., 2I], c's dtype) may be NULL: it holds the product when no fused kernel applies. */
tessera_status tessera_matmul_silu_and_mul(const tessera_tensor* a, const tessera_tensor* w, const tessera_tensor* c,
                                           const tessera_tensor* scratch, const tessera_options* options);
/* fp8 matmul: c = scale_a * scale_b * (a @ b^T), a [..., K] and b [N, K] fp8 e4m3 holding values / scale_a and
 * / scale_b (per-tensor scales), c [..., N] bf16, f16 or f32. */
tessera_status tessera_matmul_fp8(const tessera_tensor* a, const tessera_tensor* b, const tessera_tensor* c, float scale_a,
                                  float scale_b, const tessera_options* options);
/* Batched matmul: c[i] = alpha * act(a[i] @ b[i] + bias) + residual[i]. a [B, M, K]; b [B, N, K] (b_layout 0) or
 * [B, K, N] (1); c and residual [B, M, N]; bias [N]. Any batch and row strides, unit-stride last dims. */
tessera_status tessera_bmm(const tessera_tensor* a, const tessera_tensor* b, const tessera_tensor* c, int32_t b_layout,
                           const tessera_tensor* bias, int32_t activation, float alpha, const tessera_tensor* residual,
                           const tessera_options* options);
/* Grouped matmul (mixture of experts): rows offsets[g] .. offsets[g + 1] of c = those rows of a @ b[g]^T.
 * a [R, K]; b [G, N, K]; offsets [G + 1] i32 or i64 on a's device, rising from 0 to R; c [R, N]. */
tessera_status tessera_group_gemm(const tessera_tensor* a, const tessera_tensor* b, const tessera_tensor* offsets,
                                  const tessera_tensor* c, const tessera_options* options);

/* Attention (include/tessera/ops/attention.h). fmha: q [B, Hq, Sq, Dqk], k [B, Hkv, Sk, Dqk], v [B, Hkv, Sk, Dv],
 * o [B, Hq, Sq, Dv]; lse [B, Hq, Sq] f32 or NULL. scale 0 = 1 / sqrt(Dqk); causal 0/1; window_left -1 = unlimited;
 * softcap 0 = off. */
tessera_status tessera_fmha(const tessera_tensor* q, const tessera_tensor* k, const tessera_tensor* v, const tessera_tensor* o,
                            const tessera_tensor* lse, float scale, int32_t causal, int64_t window_left, float softcap,
                            const tessera_options* options);
/* fmha_fp8: fmha on fp8 e4m3 q, k, v holding values / q_scale, / k_scale, / v_scale (per-tensor scales); o bf16 or
 * f16; the rest as for fmha. */
tessera_status tessera_fmha_fp8(const tessera_tensor* q, const tessera_tensor* k, const tessera_tensor* v,
                                const tessera_tensor* o, const tessera_tensor* lse, float q_scale, float k_scale,
                                float v_scale, float scale, int32_t causal, int64_t window_left, float softcap,
                                const tessera_options* options);
/* fmha_backward: the gradients dq, dk, dv (shaped like q, k, v) from the forward's o and lse (not NULL) and d_o
 * [B, Hq, Sq, Dv], the gradient of the loss with respect to o; scale, causal, window_left, softcap as for fmha. */
tessera_status tessera_fmha_backward(const tessera_tensor* q, const tessera_tensor* k, const tessera_tensor* v,
                                     const tessera_tensor* o, const tessera_tensor* d_o, const tessera_tensor* lse,
                                     const tessera_tensor* dq, const tessera_tensor* dk, const tessera_tensor* dv, float scale,
                                     int32_t causal, int64_t window_left, float softcap, const tessera_options* options);
/* fmha_decode: q [B, Sq, Hq, Dk]; k_pages [num_pages, page_size, Hkv, Dk], v_pages [num_pages, page_size, Hkv, Dv];
 * block_table [B, max_pages] i32, or NULL for a contiguous cache [B, S_max, Hkv, D]; seq_lens [B] i32;
 * o [B, Sq, Hq, Dv]. */
tessera_status tessera_fmha_decode(const tessera_tensor* q, const tessera_tensor* k_pages, const tessera_tensor* v_pages,
                                   const tessera_tensor* block_table, const tessera_tensor* seq_lens, const tessera_tensor* o,
                                   float scale, int64_t window_left, float softcap, const tessera_options* options);
/* mla_decode (DeepSeek-V2/V3, projections absorbed): q [B, Sq, H, R + P]; latent_pages [num_pages, page_size, R + P],
 * each row a token's c_kv (R) then its rope key (P), both key and (its first R columns) value; block_table and
 * seq_lens as for fmha_decode; o [B, Sq, H, R]. scale 0 means 1 / sqrt(R + P). */
tessera_status tessera_mla_decode(const tessera_tensor* q, const tessera_tensor* latent_pages, const tessera_tensor* block_table,
                                  const tessera_tensor* seq_lens, const tessera_tensor* o, float scale, int64_t window_left,
                                  float softcap, const tessera_options* options);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_H_ */
