#include "bench/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tessera/runtime/error.h"

namespace tessera::bench {

namespace {
std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

double fraction(double flops, double bytes, double us, const Ceilings& c) {
  if (us <= 0) return 0;
  double f = 0;
  if (c.tensor_tflops > 0 && flops > 0) f = std::max(f, flops / us * 1e-6 / c.tensor_tflops);
  if (c.copy_gbps > 0 && bytes > 0) f = std::max(f, bytes / us * 1e-3 / c.copy_gbps);
  return f;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else out += ch;
  }
  return out;
}
}  // namespace

double Row::ceiling_fraction(const Ceilings& c) const { return fraction(flops, bytes, us, c); }
double Row::baseline_fraction(const Ceilings& c) const { return baseline_us ? fraction(flops, bytes, *baseline_us, c) : 0; }
std::optional<double> Row::speedup() const {
  if (!baseline_us || us <= 0) return std::nullopt;
  return *baseline_us / us;
}

std::string to_json(const Report& r) {
  using json = nlohmann::json;
  json doc;
  doc["device"] = r.device;
  doc["dtype"] = r.dtype;
  doc["date"] = r.date;
  if (r.batch_us > 0) doc["batch_us"] = r.batch_us;
  doc["ceilings"] = {{"copy_gbps", r.ceilings.copy_gbps},
                     {"tensor_tflops", r.ceilings.tensor_tflops},
                     {"tensor_source", r.ceilings.tensor_source}};
  doc["notes"] = r.notes;
  json rows = json::array();
  for (const Row& row : r.rows) {
    json j = {{"op", row.op},         {"shape", row.shape},   {"us", row.us},
              {"flops", row.flops},   {"bytes", row.bytes},   {"tflops", row.tflops()},
              {"gbps", row.gbps()},   {"ceiling_fraction", row.ceiling_fraction(r.ceilings)}};
    if (row.flops > 0 && r.ceilings.tensor_tflops > 0) j["tensor_fraction"] = row.tflops() / r.ceilings.tensor_tflops;
    if (r.ceilings.copy_gbps > 0) j["copy_fraction"] = row.gbps() / r.ceilings.copy_gbps;
    if (row.baseline_us) {
      j["baseline"] = row.baseline;
      j["baseline_us"] = *row.baseline_us;
      j["baseline_ceiling_fraction"] = row.baseline_fraction(r.ceilings);
      j["speedup"] = *row.speedup();
    }
    if (!row.note.empty()) j["note"] = row.note;
    rows.push_back(std::move(j));
  }
  doc["rows"] = std::move(rows);
  return doc.dump(1) + "\n";
}

std::string to_markdown(const Report& r) {
  std::string md = "# tessera bench\n\n";
  md += "Device: " + md_escape(r.device) + ". dtype: " + r.dtype + ". " + r.date + ".\n\n";
  md += "Ceilings measured in this run: device-to-device copy " +
        (r.ceilings.copy_gbps > 0 ? fmt("%.0f GB/s", r.ceilings.copy_gbps) : std::string("not measured")) +
        " (bytes read + written); tensor cores " +
        (r.ceilings.tensor_tflops > 0 ? fmt("%.0f TFLOP/s", r.ceilings.tensor_tflops) + " (" + r.ceilings.tensor_source + ")"
                                      : std::string("not measured")) +
        ".\n\n";
  if (r.batch_us > 0)
    md += "Times: the median over batches of back-to-back calls, each batch about " + fmt("%.0f", r.batch_us) +
          " us long (`--batch-us`).\n\n";
  for (const auto& note : r.notes) md += "- " + md_escape(note) + "\n";
  if (!r.notes.empty()) md += "\n";
  md += "| op | shape | time (us) | TFLOP/s | GB/s | % TC | % copy BW | baseline | baseline (us) | speed vs baseline |\n";
  md += "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n";
  for (const Row& row : r.rows) {
    const bool tc = row.flops > 0 && r.ceilings.tensor_tflops > 0;
    const bool bw = r.ceilings.copy_gbps > 0;
    md += "| " + md_escape(row.op) + " | " + md_escape(row.shape) + " | " + fmt("%.2f", row.us) + " | " +
          (row.flops > 0 ? fmt("%.1f", row.tflops()) : std::string("-")) + " | " + fmt("%.0f", row.gbps()) + " | " +
          (tc ? fmt("%.1f%%", 100 * row.tflops() / r.ceilings.tensor_tflops) : std::string("-")) + " | " +
          (bw ? fmt("%.1f%%", 100 * row.gbps() / r.ceilings.copy_gbps) : std::string("-")) + " | " +
          (row.baseline_us ? md_escape(row.baseline) : std::string("-")) + " | " +
          (row.baseline_us ? fmt("%.2f", *row.baseline_us) : std::string("-")) + " | " +
          (row.speedup() ? fmt("%.2fx", *row.speedup()) : std::string("-")) + " |";
    if (!row.note.empty()) {
      md += ' ';
      md += md_escape(row.note);
    }
    md += "\n";
  }
  md += "\nspeed vs baseline = baseline time / tessera time (above 1: tessera is faster). % TC and % copy BW are of "
        "the ceilings above.\n";
  return md;
}

std::string text_header() {
  char line[256];
  std::snprintf(line, sizeof line, "%-17s %-36s %11s %9s %8s %8s %11s %8s\n", "op", "shape", "time(us)", "TFLOP/s", "GB/s",
                "%ceil", "base(us)", "speed");
  return line;
}

std::string text_row(const Row& row, const Ceilings& c) {
  char line[512];
  std::snprintf(line, sizeof line, "%-17s %-36s %11.2f %9.1f %8.0f %7.1f%% %11s %8s %s\n", row.op.c_str(),
                row.shape.c_str(), row.us, row.tflops(), row.gbps(), 100 * row.ceiling_fraction(c),
                row.baseline_us ? fmt("%.2f", *row.baseline_us).c_str() : "-",
                row.speedup() ? fmt("%.2fx", *row.speedup()).c_str() : "-", row.note.c_str());
  return line;
}

std::string to_text(const Report& r) {
  std::string out = "device: " + r.device + "   dtype: " + r.dtype + "\n";
  out += "ceilings: copy " + (r.ceilings.copy_gbps > 0 ? fmt("%.0f GB/s", r.ceilings.copy_gbps) : std::string("-")) +
         ", tensor cores " +
         (r.ceilings.tensor_tflops > 0 ? fmt("%.0f TFLOP/s", r.ceilings.tensor_tflops) + " (" + r.ceilings.tensor_source + ")"
                                       : std::string("-")) +
         "\n";
  for (const auto& note : r.notes) out += "note: " + note + "\n";
  out += text_header();
  for (const Row& row : r.rows) out += text_row(row, r.ceilings);
  return out;
}

std::string to_svg(const Report& r) {
  // Layout: a title, a legend, then per row a label and two bars (tessera, baseline) on a 0..max% axis.
  const int label_w = 300, plot_w = 520, right_w = 90, bar_h = 10, row_h = 2 * bar_h + 10, top = 70;
  const int width = label_w + plot_w + right_w;
  const int height = top + int(r.rows.size()) * row_h + 40;
  double max_pct = 100;
  for (const Row& row : r.rows)
    max_pct = std::max({max_pct, 100 * row.ceiling_fraction(r.ceilings), 100 * row.baseline_fraction(r.ceilings)});
  max_pct = std::ceil(max_pct / 20) * 20;
  auto x_of = [&](double pct) { return label_w + plot_w * std::min(pct, max_pct) / max_pct; };

  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
       std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">tessera bench: % of the measured ceiling (" +
       xml_escape(r.dtype) + ", " + xml_escape(r.device) + ")</text>\n";
  s += "<text x=\"10\" y=\"38\">ceiling: tensor cores " + fmt("%.0f TFLOP/s", r.ceilings.tensor_tflops) +
       " or copy bandwidth " + fmt("%.0f GB/s", r.ceilings.copy_gbps) +
       ", whichever the op is closer to; right: speed vs baseline</text>\n";
  s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"46\" width=\"12\" height=\"10\" fill=\"#2b6cb0\"/><text x=\"" +
       std::to_string(label_w + 16) + "\" y=\"55\">tessera</text>\n";
  s += "<rect x=\"" + std::to_string(label_w + 90) + "\" y=\"46\" width=\"12\" height=\"10\" fill=\"#a0aec0\"/><text x=\"" +
       std::to_string(label_w + 106) + "\" y=\"55\">baseline</text>\n";
  // Grid lines every 20%.
  const int plot_bottom = top + int(r.rows.size()) * row_h;
  for (double pct = 0; pct <= max_pct + 1e-9; pct += 20) {
    const std::string x = fmt("%.1f", x_of(pct));
    s += "<line x1=\"" + x + "\" y1=\"" + std::to_string(top - 4) + "\" x2=\"" + x + "\" y2=\"" +
         std::to_string(plot_bottom) + "\" stroke=\"" + (pct == 100 ? "#e53e3e" : "#e2e8f0") + "\"/>\n";
    s += "<text x=\"" + x + "\" y=\"" + std::to_string(plot_bottom + 14) + "\" text-anchor=\"middle\">" +
         fmt("%.0f%%", pct) + "</text>\n";
  }
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const Row& row = r.rows[i];
    const int y = top + int(i) * row_h;
    s += "<text x=\"" + std::to_string(label_w - 6) + "\" y=\"" + std::to_string(y + bar_h + 4) +
         "\" text-anchor=\"end\">" + xml_escape(row.op + " " + row.shape) + "</text>\n";
    const double ours = 100 * row.ceiling_fraction(r.ceilings);
    s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
         fmt("%.1f", x_of(ours) - label_w) + "\" height=\"" + std::to_string(bar_h) + "\" fill=\"#2b6cb0\"><title>" +
         fmt("%.1f%%", ours) + "</title></rect>\n";
    if (row.baseline_us) {
      const double base = 100 * row.baseline_fraction(r.ceilings);
      s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + bar_h) + "\" width=\"" +
           fmt("%.1f", x_of(base) - label_w) + "\" height=\"" + std::to_string(bar_h) + "\" fill=\"#a0aec0\"><title>" +
           fmt("%.1f%%", base) + "</title></rect>\n";
      s += "<text x=\"" + std::to_string(label_w + plot_w + 8) + "\" y=\"" + std::to_string(y + bar_h + 4) + "\">" +
           fmt("%.2fx", *row.speedup()) + "</text>\n";
    }
  }
  s += "</svg>\n";
  return s;
}

std::vector<std::string> write_report(const Report& report, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail(Status::io_error, "cannot create " + dir + ": " + ec.message());
  std::vector<std::string> paths;
  for (const auto& [name, text] : {std::pair{"bench.json", to_json(report)}, std::pair{"bench.md", to_markdown(report)},
                                   std::pair{"bench.svg", to_svg(report)}}) {
    const std::string path = (fs::path(dir) / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) fail(Status::io_error, "cannot write " + path);
    paths.push_back(path);
  }
  return paths;
}

}  // namespace tessera::bench
