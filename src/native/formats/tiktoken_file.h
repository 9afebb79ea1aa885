// Parser for tiktoken's vocabulary files: one "<base64 token bytes> <rank>" per line.
#pragma once
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tokenforge {

inline std::string line_error(size_t line, const std::string& what) {
  return "line " + std::to_string(line) + ": " + what;
}

inline bool decode_base64(std::string_view in, std::string& out) {
  static const auto table = [] {
    std::array<int8_t, 256> t{};
    t.fill(-1);
    const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) t[uint8_t(a[i])] = int8_t(i);
    return t;
  }();
  if (in.empty() || in.size() % 4) return false;
  size_t pad = 0;
  while (pad < 2 && in[in.size() - 1 - pad] == '=') ++pad;
  out.clear();
  uint32_t acc = 0;
  for (size_t i = 0; i < in.size() - pad; ++i) {
    const int8_t v = table[uint8_t(in[i])];
    if (v < 0) return false;
    acc = (acc << 6) | uint32_t(v);
    if (i % 4 == 3) {
      out.push_back(char(acc >> 16));
      out.push_back(char(acc >> 8));
      out.push_back(char(acc));
      acc = 0;
    }
  }
  if (pad == 1) {
    out.push_back(char(acc >> 10));
    out.push_back(char(acc >> 2));
  } else if (pad == 2) {
    out.push_back(char(acc >> 4));
  }
  return true;
}

// Returns tokens indexed by rank (empty where a rank is unused), keeping ranks < rank_limit.
inline std::vector<std::string> parse_tiktoken(std::string_view data, uint64_t rank_limit) {
  constexpr uint64_t kMaxRank = 1u << 24;  // a guard against corrupt ranks eating all memory
  std::vector<std::string> tokens;
  // base64 text -> line, to report duplicates by line (a non-canonical base64 alias of the same
  // bytes is still rejected when the vocabulary's tables are built, by rank).
  std::unordered_map<std::string_view, size_t> line_of;
  line_of.reserve(data.size() / 12);
  std::string bytes;
  size_t line_no = 0;
  for (size_t pos = 0; pos < data.size();) {
    size_t end = data.find('\n', pos);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = data.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos)
      throw std::invalid_argument(line_error(line_no, "expected '<base64 token> <rank>'"));
    std::string_view b64 = line.substr(0, space), digits = line.substr(space + 1);
    if (digits.empty() || digits.size() > 10)
      throw std::invalid_argument(line_error(line_no, "rank is not a non-negative integer"));
    uint64_t rank = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') throw std::invalid_argument(line_error(line_no, "rank is not a non-negative integer"));
      rank = rank * 10 + uint64_t(c - '0');
    }
    if (rank >= kMaxRank)
      throw std::invalid_argument(line_error(line_no, "rank " + std::to_string(rank) + " is too large"));
    if (!decode_base64(b64, bytes) || bytes.empty())
      throw std::invalid_argument(line_error(line_no, "token is not valid non-empty base64"));
    if (rank >= rank_limit) continue;
    auto [seen, fresh] = line_of.emplace(b64, line_no);
    if (!fresh)
      throw std::invalid_argument(line_error(line_no, "the same token bytes as line " + std::to_string(seen->second)));
    if (rank >= tokens.size()) tokens.resize(rank + 1);
    if (!tokens[rank].empty())
      throw std::invalid_argument(line_error(line_no, "rank " + std::to_string(rank) + " appears twice"));
    tokens[rank] = bytes;
  }
  return tokens;
}

}  // namespace tokenforge
