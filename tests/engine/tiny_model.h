// Tiny models for the engine tests: a config.json and a model.safetensors of random f32 weights written into a
// temporary directory, and an independent forward in double precision over the same weights (plain loops,
// written from the architectures' definitions, sharing no code with the engine).
#pragma once
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tessera/engine/safetensors.h"

namespace tessera::testing {

struct TinySpec {
  std::string name;            // also the model_type: "llama", "mistral", "qwen2", "qwen3", "gpt2"
  int vocab = 61, hidden = 32, intermediate = 44, layers = 2, heads = 4, kv_heads = 2, head_dim = 8;
  int max_positions = 96;
  bool qkv_bias = false, qk_norm = false, tied = false, llama3_scaling = false;
  int sliding_window = 0;
  double theta = 10000.0;
  double eps = 1e-5;
};

inline void PrintTo(const TinySpec& s, std::ostream* os) { *os << s.name; }

inline std::vector<TinySpec> tiny_specs() {
  std::vector<TinySpec> s;
  TinySpec llama{"llama"};
  llama.llama3_scaling = true;  // Llama 3.1-style frequencies
  llama.theta = 500000.0;
  s.push_back(llama);
  TinySpec mistral{"mistral"};
  mistral.sliding_window = 4;   // small, so the test prompts cross it
  mistral.kv_heads = 1;         // MQA
  s.push_back(mistral);
  TinySpec qwen2{"qwen2"};
  qwen2.qkv_bias = true;
  qwen2.tied = true;
  qwen2.theta = 1000000.0;
  s.push_back(qwen2);
  TinySpec qwen3{"qwen3"};
  qwen3.qk_norm = true;
  qwen3.head_dim = 12;          // not hidden / heads, as in Qwen3
  qwen3.tied = true;
  s.push_back(qwen3);
  TinySpec gpt2{"gpt2"};
  gpt2.kv_heads = gpt2.heads;
  gpt2.intermediate = 4 * gpt2.hidden;
  gpt2.tied = true;
  s.push_back(gpt2);
  return s;
}

inline std::string tiny_config_json(const TinySpec& s) {
  std::string j = "{";
  auto kv = [&](const std::string& k, const std::string& v) { j += (j.size() > 1 ? ", \"" : "\"") + k + "\": " + v; };
  if (s.name == "gpt2") {
    kv("architectures", "[\"GPT2LMHeadModel\"]");
    kv("model_type", "\"gpt2\"");
    kv("n_embd", std::to_string(s.hidden));
    kv("n_head", std::to_string(s.heads));
    kv("n_layer", std::to_string(s.layers));
    kv("n_positions", std::to_string(s.max_positions));
    kv("vocab_size", std::to_string(s.vocab));
    kv("layer_norm_epsilon", "1e-05");
    kv("activation_function", "\"gelu_new\"");
    kv("bos_token_id", "0");
    kv("eos_token_id", "0");
  } else {
    const std::string arch = s.name == "llama" ? "LlamaForCausalLM" : s.name == "mistral" ? "MistralForCausalLM"
                             : s.name == "qwen2" ? "Qwen2ForCausalLM" : "Qwen3ForCausalLM";
    kv("architectures", "[\"" + arch + "\"]");
    kv("model_type", "\"" + s.name + "\"");
    kv("hidden_size", std::to_string(s.hidden));
    kv("intermediate_size", std::to_string(s.intermediate));
    kv("num_hidden_layers", std::to_string(s.layers));
    kv("num_attention_heads", std::to_string(s.heads));
    kv("num_key_value_heads", std::to_string(s.kv_heads));
    kv("head_dim", std::to_string(s.head_dim));
    kv("max_position_embeddings", std::to_string(s.max_positions));
    kv("vocab_size", std::to_string(s.vocab));
    kv("rms_norm_eps", "1e-05");
    kv("rope_theta", std::to_string(s.theta));
    kv("tie_word_embeddings", s.tied ? "true" : "false");
    kv("hidden_act", "\"silu\"");
    kv("bos_token_id", "1");
    kv("eos_token_id", "2");
    if (s.llama3_scaling)
      kv("rope_scaling", R"({"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 32, "rope_type": "llama3"})");
    if (s.sliding_window) kv("sliding_window", std::to_string(s.sliding_window));
    if (s.name == "qwen2" || s.name == "qwen3") kv("use_sliding_window", "false");
  }
  return j + "}";
}

// Weights by Hugging Face name, as f32-representable doubles, with their shapes.
struct TinyWeights {
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, Shape> shapes;
  const std::vector<double>& operator[](const std::string& n) const { return values.at(n); }
  bool has(const std::string& n) const { return values.count(n) != 0; }
};

inline TinyWeights tiny_weights(const TinySpec& s, uint64_t seed) {
  std::mt19937_64 gen(seed);
  TinyWeights w;
  auto add = [&](const std::string& name, Shape shape, double center, double spread) {
    size_t n = 1;
    for (auto d : shape) n *= size_t(d);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> v(n);
    for (auto& x : v) x = double(float(center + spread * u(gen)));  // exactly representable in f32
    w.values[name] = v;
    w.shapes[name] = shape;
  };
  const int64_t H = s.hidden, I = s.intermediate, D = s.head_dim, V = s.vocab;
  const int64_t q = int64_t(s.heads) * D, kvo = int64_t(s.kv_heads) * D;
  const double m = 0.5;  // matrix spread (large enough that attention is not uniform)
  if (s.name == "gpt2") {
    add("wte.weight", {V, H}, 0, 1);
    add("wpe.weight", {s.max_positions, H}, 0, 0.5);
    for (int l = 0; l < s.layers; ++l) {
      const std::string p = "h." + std::to_string(l) + ".";
      add(p + "ln_1.weight", {H}, 1, 0.2);
      add(p + "ln_1.bias", {H}, 0, 0.2);
      add(p + "attn.c_attn.weight", {H, 3 * H}, 0, m);
      add(p + "attn.c_attn.bias", {3 * H}, 0, 0.2);
      add(p + "attn.c_proj.weight", {H, H}, 0, m / 2);
      add(p + "attn.c_proj.bias", {H}, 0, 0.2);
      add(p + "ln_2.weight", {H}, 1, 0.2);
      add(p + "ln_2.bias", {H}, 0, 0.2);
      add(p + "mlp.c_fc.weight", {H, I}, 0, m / 2);
      add(p + "mlp.c_fc.bias", {I}, 0, 0.2);
      add(p + "mlp.c_proj.weight", {I, H}, 0, m / 4);
      add(p + "mlp.c_proj.bias", {H}, 0, 0.2);
    }
    add("ln_f.weight", {H}, 1, 0.2);
    add("ln_f.bias", {H}, 0, 0.2);
    return w;
  }
  add("model.embed_tokens.weight", {V, H}, 0, 1);
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", {H}, 1, 0.2);
    add(p + "self_attn.q_proj.weight", {q, H}, 0, m);
    add(p + "self_attn.k_proj.weight", {kvo, H}, 0, m);
    add(p + "self_attn.v_proj.weight", {kvo, H}, 0, m);
    if (s.qkv_bias) {
      add(p + "self_attn.q_proj.bias", {q}, 0, 0.3);
      add(p + "self_attn.k_proj.bias", {kvo}, 0, 0.3);
      add(p + "self_attn.v_proj.bias", {kvo}, 0, 0.3);
    }
    if (s.qk_norm) {
      add(p + "self_attn.q_norm.weight", {D}, 1, 0.3);
      add(p + "self_attn.k_norm.weight", {D}, 1, 0.3);
    }
    add(p + "self_attn.o_proj.weight", {H, q}, 0, m / 2);
    add(p + "post_attention_layernorm.weight", {H}, 1, 0.2);
    add(p + "mlp.gate_proj.weight", {I, H}, 0, m / 2);
    add(p + "mlp.up_proj.weight", {I, H}, 0, m / 2);
    add(p + "mlp.down_proj.weight", {H, I}, 0, m / 4);
  }
  add("model.norm.weight", {H}, 1, 0.2);
  if (!s.tied) add("lm_head.weight", {V, H}, 0, 0.5);
  return w;
}

// Writes config.json and model.safetensors (f32) into `dir` (created).
inline void write_tiny_model(const std::filesystem::path& dir, const TinySpec& s, const TinyWeights& w,
                             const std::vector<std::string>& skip = {}) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << tiny_config_json(s);
  std::map<std::string, std::vector<float>> storage;
  std::map<std::string, Tensor> tensors;
  for (const auto& [name, v] : w.values) {
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    auto& f = storage[name];
    f.assign(v.begin(), v.end());
    tensors[name] = Tensor::view(f.data(), w.shapes.at(name), DType::f32);
  }
  engine::save_safetensors((dir / "model.safetensors").string(), tensors);
}

// ---- the fp64 reference forward ----

namespace ref {
using Vec = std::vector<double>;

// y[o] = sum_i W[o, i] x[i] (+ b[o]); W stored [out, in] (nn.Linear) or [in, out] (Conv1D) per `in_out`.
inline Vec linear(const Vec& W, const Vec* b, const Vec& x, int64_t out, bool in_out = false) {
  const int64_t in = int64_t(x.size());
  Vec y(static_cast<size_t>(out), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    double acc = b ? (*b)[size_t(o)] : 0.0;
    for (int64_t i = 0; i < in; ++i) acc += (in_out ? W[size_t(i * out + o)] : W[size_t(o * in + i)]) * x[size_t(i)];
    y[size_t(o)] = acc;
  }
  return y;
}

inline Vec rms_norm(const Vec& x, const Vec& w, double eps, size_t offset = 0, size_t n = 0) {
  if (n == 0) n = x.size();
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += x[offset + i] * x[offset + i];
  const double r = 1.0 / std::sqrt(ss / double(n) + eps);
  Vec y(n);
  for (size_t i = 0; i < n; ++i) y[i] = x[offset + i] * r * w[i];
  return y;
}

inline Vec layer_norm(const Vec& x, const Vec& w, const Vec& b, double eps) {
  double mean = 0, var = 0;
  for (double v : x) mean += v;
  mean /= double(x.size());
  for (double v : x) var += (v - mean) * (v - mean);
  var /= double(x.size());
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = (x[i] - mean) / std::sqrt(var + eps) * w[i] + b[i];
  return y;
}

inline std::vector<double> inv_freq(const TinySpec& s) {
  std::vector<double> f(size_t(s.head_dim / 2));
  for (int i = 0; i < s.head_dim / 2; ++i) {
    double v = std::pow(s.theta, -2.0 * i / s.head_dim);
    if (s.llama3_scaling) {  // factor 8, low 1, high 4, original context 32
      const double wavelen = 2 * M_PI / v, low = 32.0 / 1.0, high = 32.0 / 4.0;
      if (wavelen > low) v = v / 8.0;
      else if (wavelen >= high) {
        const double smooth = (32.0 / wavelen - 1.0) / (4.0 - 1.0);
        v = (1 - smooth) * v / 8.0 + smooth * v;
      }
    }
    f[size_t(i)] = v;
  }
  return f;
}

// Rotates head `h` (D features at offset h * D) of x by position `pos`, NeoX pairs (i, i + D/2).
inline void rope(Vec& x, int64_t heads, int64_t D, int pos, const std::vector<double>& inv) {
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < D / 2; ++i) {
      const double a = pos * inv[size_t(i)], c = std::cos(a), sn = std::sin(a);
      double& x0 = x[size_t(h * D + i)];
      double& x1 = x[size_t(h * D + i + D / 2)];
      const double r0 = x0 * c - x1 * sn, r1 = x1 * c + x0 * sn;
      x0 = r0;
      x1 = r1;
    }
}

// The logits after every token of `ids` (one sequence from position 0): [T][vocab].
inline std::vector<Vec> forward(const TinySpec& s, const TinyWeights& w, const std::vector<int>& ids) {
  const bool gpt2 = s.name == "gpt2";
  const int64_t H = s.hidden, D = s.head_dim, Hq = s.heads, Hkv = s.kv_heads, T = int64_t(ids.size());
  const int64_t I = s.intermediate, V = s.vocab;
  const std::vector<double> inv = inv_freq(s);
  std::vector<Vec> x(static_cast<size_t>(T), Vec(static_cast<size_t>(H)));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < H; ++i)
      x[size_t(t)][size_t(i)] = gpt2 ? w["wte.weight"][size_t(ids[size_t(t)] * H + i)] + w["wpe.weight"][size_t(t * H + i)]
                                     : w["model.embed_tokens.weight"][size_t(ids[size_t(t)] * H + i)];
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = (gpt2 ? "h." : "model.layers.") + std::to_string(l) + ".";
    std::vector<Vec> q(static_cast<size_t>(T)), k(static_cast<size_t>(T)), v(static_cast<size_t>(T));
    for (int64_t t = 0; t < T; ++t) {
      if (gpt2) {
        const Vec h = layer_norm(x[size_t(t)], w[p + "ln_1.weight"], w[p + "ln_1.bias"], s.eps);
        const Vec qkv = linear(w[p + "attn.c_attn.weight"], &w[p + "attn.c_attn.bias"], h, 3 * H, true);
        q[size_t(t)].assign(qkv.begin(), qkv.begin() + H);
        k[size_t(t)].assign(qkv.begin() + H, qkv.begin() + 2 * H);
        v[size_t(t)].assign(qkv.begin() + 2 * H, qkv.end());
      } else {
        const Vec h = rms_norm(x[size_t(t)], w[p + "input_layernorm.weight"], s.eps);
        auto bias = [&](const char* n) { return s.qkv_bias ? &w[p + "self_attn." + n + ".bias"] : nullptr; };
        q[size_t(t)] = linear(w[p + "self_attn.q_proj.weight"], bias("q_proj"), h, Hq * D);
        k[size_t(t)] = linear(w[p + "self_attn.k_proj.weight"], bias("k_proj"), h, Hkv * D);
        v[size_t(t)] = linear(w[p + "self_attn.v_proj.weight"], bias("v_proj"), h, Hkv * D);
        if (s.qk_norm) {
          for (int64_t hh = 0; hh < Hq; ++hh) {
            const Vec n = rms_norm(q[size_t(t)], w[p + "self_attn.q_norm.weight"], s.eps, size_t(hh * D), size_t(D));
            std::copy(n.begin(), n.end(), q[size_t(t)].begin() + hh * D);
          }
          for (int64_t hh = 0; hh < Hkv; ++hh) {
            const Vec n = rms_norm(k[size_t(t)], w[p + "self_attn.k_norm.weight"], s.eps, size_t(hh * D), size_t(D));
            std::copy(n.begin(), n.end(), k[size_t(t)].begin() + hh * D);
          }
        }
        rope(q[size_t(t)], Hq, D, int(t), inv);
        rope(k[size_t(t)], Hkv, D, int(t), inv);
      }
    }
    for (int64_t t = 0; t < T; ++t) {
      Vec attn(size_t(Hq * D), 0.0);
      for (int64_t hh = 0; hh < Hq; ++hh) {
        const int64_t kh = hh / (Hq / Hkv);
        const int64_t first = s.sliding_window > 0 ? std::max<int64_t>(0, t - s.sliding_window + 1) : 0;
        std::vector<double> score;
        double top = -INFINITY;
        for (int64_t j = first; j <= t; ++j) {
          double d = 0;
          for (int64_t i = 0; i < D; ++i) d += q[size_t(t)][size_t(hh * D + i)] * k[size_t(j)][size_t(kh * D + i)];
          score.push_back(d / std::sqrt(double(D)));
          top = std::max(top, score.back());
        }
        double sum = 0;
        for (auto& e : score) sum += (e = std::exp(e - top));
        for (int64_t j = first; j <= t; ++j)
          for (int64_t i = 0; i < D; ++i)
            attn[size_t(hh * D + i)] += score[size_t(j - first)] / sum * v[size_t(j)][size_t(kh * D + i)];
      }
      Vec& xt = x[size_t(t)];
      const Vec o = gpt2 ? linear(w[p + "attn.c_proj.weight"], &w[p + "attn.c_proj.bias"], attn, H, true)
                         : linear(w[p + "self_attn.o_proj.weight"], nullptr, attn, H);
      for (int64_t i = 0; i < H; ++i) xt[size_t(i)] += o[size_t(i)];
      Vec mlp;
      if (gpt2) {
        const Vec h = layer_norm(xt, w[p + "ln_2.weight"], w[p + "ln_2.bias"], s.eps);
        Vec f = linear(w[p + "mlp.c_fc.weight"], &w[p + "mlp.c_fc.bias"], h, I, true);
        for (auto& a : f) a = 0.5 * a * (1 + std::tanh(std::sqrt(2 / M_PI) * (a + 0.044715 * a * a * a)));
        mlp = linear(w[p + "mlp.c_proj.weight"], &w[p + "mlp.c_proj.bias"], f, H, true);
      } else {
        const Vec h = rms_norm(xt, w[p + "post_attention_layernorm.weight"], s.eps);
        const Vec g = linear(w[p + "mlp.gate_proj.weight"], nullptr, h, I), u = linear(w[p + "mlp.up_proj.weight"], nullptr, h, I);
        Vec a(static_cast<size_t>(I));
        for (int64_t i = 0; i < I; ++i) a[size_t(i)] = g[size_t(i)] / (1 + std::exp(-g[size_t(i)])) * u[size_t(i)];
        mlp = linear(w[p + "mlp.down_proj.weight"], nullptr, a, H);
      }
      for (int64_t i = 0; i < H; ++i) xt[size_t(i)] += mlp[size_t(i)];
    }
  }
  std::vector<Vec> logits;
  for (int64_t t = 0; t < T; ++t) {
    const Vec h = gpt2 ? layer_norm(x[size_t(t)], w["ln_f.weight"], w["ln_f.bias"], s.eps)
                       : rms_norm(x[size_t(t)], w["model.norm.weight"], s.eps);
    const std::string head = gpt2 ? "wte.weight" : s.tied ? "model.embed_tokens.weight" : "lm_head.weight";
    logits.push_back(linear(w[head], nullptr, h, V));
  }
  return logits;
}
}  // namespace ref

}  // namespace tessera::testing
