// llama.cpp's PLaMo-2 tokenizer (src/llama-vocab.cpp, llm_tokenizer_plamo2) as a model of the
// staged pipeline (models/model.h), for GGUF files whose tokenizer.ggml.model is "plamo2"
// (tokenforge/formats/gguf.py builds it; models/model_factory.h names it "GgufPlamo2").
//
// A piece is cut by dynamic programming from its end: the cost of the text from code point i on
// is the least, over the tokens that start there, of the token's cost (minus its score, as an
// integer: round(score * 10^4)) plus the cost after it; one code point no token covers costs
// 10^7 and is spelled by its UTF-8 byte tokens (<0xXX>). Candidates are tried longest first and
// only a strictly lower cost replaces the best, so on ties the longest token wins; the unknown
// code point comes last. Byte tokens and tokens without a finite score are never candidates, nor
// those whose integer score is -2*10^7 or less; one scoring exactly -10^7 ends the candidates of
// its position (llama.cpp takes it for the unknown row).
// llama.cpp finds the candidates with a suffix table; a byte trie walked from each position
// finds the same set (every token that is a prefix of the rest of the text). A leading U+FEFF
// (byte order mark) is dropped.
#pragma once
#include <cmath>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/byte_trie.h"
#include "models/model.h"

namespace tokenforge {

class Plamo2Model : public Model {
 public:
  static constexpr int64_t kUnknownScore = -10000000;  // an uncovered code point
  static constexpr int64_t kInvalidScore = -20000000;  // at or below: never a candidate

  // scores[id]: the token's score, NaN where it is no candidate (byte tokens, no finite score);
  // byte_ids[b]: the token of byte b.
  Plamo2Model(const Vocabulary& vocab, const std::vector<double>& scores, const std::vector<uint32_t>& byte_ids)
      : byte_ids_(byte_ids) {
    if (byte_ids_.size() != 256) throw std::invalid_argument("model GgufPlamo2: byte_tokens must hold 256 ids");
    for (const auto& [token, id] : vocab) {
      if (id >= scores.size() || !std::isfinite(scores[id]) || token.empty()) continue;
      if (!trie_.insert(reinterpret_cast<const uint8_t*>(token.data()), token.size(), id))
        throw std::invalid_argument("model GgufPlamo2: token '" + token + "' appears twice");
      if (id >= score_.size()) score_.resize(size_t(id) + 1, 0);
      const double scaled = std::round(scores[id] * 1e4);  // llama.cpp's int32 cast, kept in range
      score_[id] = scaled <= -2147483648.0 ? INT32_MIN : scaled >= 2147483647.0 ? INT32_MAX : int32_t(scaled);
    }
  }

  void tokenize(const std::string& piece, std::vector<ModelToken>& out) const override {
    const auto* s = reinterpret_cast<const uint8_t*>(piece.data());
    size_t begin = 0;
    if (piece.size() >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) begin = 3;  // U+FEFF
    // Code point starts (bytes), then the end.
    std::vector<uint32_t> at;
    for (size_t i = begin; i < piece.size(); ++i)
      if ((s[i] & 0xC0) != 0x80) at.push_back(uint32_t(i));
    const size_t n = at.size();
    if (n == 0) return;
    at.push_back(uint32_t(piece.size()));
    std::vector<int64_t> cost(n + 1, int64_t(1) << 60);
    std::vector<uint32_t> length(n + 1, 0), token(n + 1, kNoToken);  // code points, id (kNoToken: bytes)
    cost[n] = 0;
    std::vector<std::pair<uint32_t, uint32_t>> found;  // (code points, id), shortest first
    for (size_t i = n; i-- > 0;) {
      found.clear();
      uint32_t node = ByteTrie::kRoot;
      size_t cp = i;  // code points matched so far end before at[cp]
      for (size_t j = at[i]; j < piece.size(); ++j) {
        node = trie_.child(node, s[j]);
        if (node == ByteTrie::kNone) break;
        if (j + 1 == at[cp + 1]) {
          ++cp;
          if (trie_.value(node) != kNoToken) found.emplace_back(uint32_t(cp - i), trie_.value(node));
        }
      }
      bool stop = false;
      for (size_t k = found.size(); k-- > 0 && !stop;) {  // longest first
        const auto [len, id] = found[k];
        if (score_[id] <= kInvalidScore) continue;
        const int64_t c = cost[i + len] - score_[id];
        if (c < cost[i]) cost[i] = c, length[i] = len, token[i] = id;
        stop = score_[id] == kUnknownScore;  // llama.cpp's table ends a position's rows there
      }
      const int64_t c = cost[i + 1] - kUnknownScore;
      if (!stop && c < cost[i]) cost[i] = c, length[i] = 1, token[i] = kNoToken;
    }
    for (size_t i = 0; i < n; i += length[i]) {
      const uint32_t start = at[i], end = at[i + length[i]];
      if (token[i] != kNoToken) {
        out.push_back(ModelToken{token[i], start, end});
        continue;
      }
      for (uint32_t b = start; b < end; ++b) out.push_back(ModelToken{byte_ids_[s[b]], start, end});
    }
  }

 private:
  ByteTrie trie_;
  std::vector<int32_t> score_;
  std::vector<uint32_t> byte_ids_;
};

}  // namespace tokenforge
