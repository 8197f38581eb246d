// tessera_tokenize_tool TOKENIZER_JSON CORPUS_JSONL [--no-special]
// Reads one JSON string per line of the corpus and prints the token ids of each as a JSON array per line.
// Also checks that streaming decode equals decode, and reports decode round trips on stderr.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tessera/engine/tokenizer.h"
#include "tessera/runtime/error.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " TOKENIZER_JSON CORPUS_JSONL [--no-special]\n";
    return 2;
  }
  const bool special = !(argc > 3 && std::string(argv[3]) == "--no-special");
  try {
    tessera::engine::Tokenizer tok = tessera::engine::Tokenizer::load(argv[1]);
    std::ifstream in(argv[2]);
    if (!in) {
      std::cerr << "cannot open " << argv[2] << "\n";
      return 2;
    }
    std::string line;
    long lines = 0, round_trips = 0, stream_mismatch = 0;
    while (std::getline(in, line)) {
      const std::string text = nlohmann::json::parse(line).get<std::string>();
      const std::vector<int> ids = tok.encode(text, special);
      std::cout << nlohmann::json(ids).dump() << "\n";
      const std::string back = tok.decode(tok.encode(text, false));
      round_trips += back == text;
      tessera::engine::StreamDecoder stream(tok);
      std::string streamed;
      for (int id : ids) streamed += stream.put(id);
      streamed += stream.flush();
      stream_mismatch += streamed != tok.decode(ids);
      ++lines;
    }
    std::cerr << argv[1] << ": " << lines << " lines, decode(encode(x)) == x for " << round_trips
              << ", streamed decode differs for " << stream_mismatch << "\n";
    return stream_mismatch == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
