// Stop tokens from generation_config.json (which may list more end tokens than config.json, as Llama 3.1 does).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/engine/generate.h"
#include "tessera/runtime/error.h"

namespace tessera::engine {

std::vector<int> stop_token_ids(const std::string& model_dir, const ModelConfig& config) {
  const std::filesystem::path path = std::filesystem::path(model_dir) / "generation_config.json";
  std::ifstream in(path);
  if (!in) return config.eos_token_ids;
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const std::exception& e) {
    invalid_argument(path.string() + ": not valid JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("eos_token_id") || j["eos_token_id"].is_null()) return config.eos_token_ids;
  const auto& e = j["eos_token_id"];
  std::vector<int> ids;
  if (e.is_number_integer()) ids.push_back(e.get<int>());
  else if (e.is_array()) {
    for (const auto& x : e) {
      if (!x.is_number_integer()) invalid_argument(path.string() + ": eos_token_id holds a non-integer");
      ids.push_back(x.get<int>());
    }
  } else invalid_argument(path.string() + ": eos_token_id is neither an integer nor a list of integers");
  return ids;
}

}  // namespace tessera::engine
