#!/usr/bin/env bash
# Writes the training corpus for the embedded default model: the King James Bible (public domain) from
# Debian's bible-kjv-text package, decoded by the package's own `bible` program, as plain text.
#
#   bash scripts/model/prepare_text.sh [OUT_DIR]        (default OUT_DIR: .dev-model, ignored by git)
#
# Output: OUT_DIR/corpus.txt: one verse per line without its reference, a blank line between chapters (the
# training script treats each chapter as a document), ASCII only. OUT_DIR/corpus.info: the package version,
# line/chapter counts and the sha256, so a rebuild can be checked against an earlier one.
# Runs here, not on the GPU machine (which cannot install packages); the folder is carried there.
set -euo pipefail
cd "$(dirname "$0")/../.."
out_dir=${1:-.dev-model}

packages=(bible-kjv bible-kjv-text)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${packages[@]}" >/dev/null
fi

mkdir -p "$out_dir"
tmp="$out_dir/corpus.txt.tmp"
# -f turns pretty-printing off: one line per verse, "Ge1:1 In the beginning ...". The reference is dropped;
# a new book or chapter (the reference minus ":verse") starts a new paragraph.
bible -f Gen1:1-Rev22:21 | LC_ALL=C awk '
  {
    ref = $1
    sub(/:[0-9]+$/, "", ref)
    text = $0
    sub(/^[^ ]+ +/, "", text)
    gsub(/[ \t\r]+$/, "", text)
    if (text == "") next
    if (NR > 1 && ref != last) print ""
    print text
    last = ref
  }' > "$tmp"

lines=$(grep -c . "$tmp")
chapters=$(( $(grep -c '^$' "$tmp") + 1 ))
# Sanity: the KJV has 31102 verses in 1189 chapters, in ASCII.
if [[ $lines -ne 31102 || $chapters -ne 1189 ]]; then
  echo "prepare_text: expected 31102 verses in 1189 chapters, got $lines in $chapters" >&2
  exit 1
fi
if LC_ALL=C grep -q '[^ -~]' "$tmp"; then
  echo "prepare_text: unexpected non-ASCII or control characters in the corpus" >&2
  exit 1
fi
mv "$tmp" "$out_dir/corpus.txt"
sha=$(sha256sum "$out_dir/corpus.txt" | cut -d' ' -f1)
{
  echo "source: Debian bible-kjv-text $(dpkg-query -W -f='${Version}' bible-kjv-text) (King James Version, public domain)"
  echo "verses: $lines"
  echo "chapters: $chapters"
  echo "bytes: $(stat -c %s "$out_dir/corpus.txt")"
  echo "sha256: $sha"
} > "$out_dir/corpus.info"
cat "$out_dir/corpus.info"
