// fastBPE's (subword-nmt's) BPE as transformers' PhobertTokenizer and CTRLTokenizer run it, a
// model of the staged pipeline (models/model.h) that no tokenizer.json names ("FastBPE"): a
// word's characters, the last with "</w>" after it, merged by rank as HF's BPE model merges
// them with end_of_word_suffix "</w>" (models/bpe/hf_bpe_model.h, over the symbols the merges
// and the vocabulary's characters make), then each symbol named as those classes name it: "@@"
// after a symbol that does not end the word, "</w>" dropped from the one that does. The
// vocabulary (vocab.txt's or vocab.json's tokens: "ab@@", "c") gives that name's id; a name it
// lacks, and a character no symbol has, take the unknown token's id. Neighbours: bpe_stage.h
// (HF's BPE model of the staged pipeline), model_factory.h (which builds this one).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/utf8.h"
#include "models/bpe/hf_bpe_model.h"
#include "models/model.h"

namespace tokenforge {

class FastBpeModel : public Model {
 public:
  // vocab: the class's tokens and ids; merges in rank order; unk_token: a token of vocab.
  FastBpeModel(const Vocabulary& vocab, const HfBpeModel::Merges& merges, const std::string& unk_token)
      : model_(symbols(vocab, merges, unk_token), merges, options(unk_token)) {}

  void tokenize(const std::string& piece, std::vector<ModelToken>& out) const override {
    run(piece.data(), piece.size(), out);
  }
  void tokenize_view(std::string_view piece, std::string&, std::vector<ModelToken>& out) const override {
    run(piece.data(), piece.size(), out);
  }

 private:
  // The merge model's tokens of p[0..n), each given the class's id of its symbol.
  void run(const char* p, size_t n, std::vector<ModelToken>& out) const {
    const size_t first = out.size();
    model_.tokenize(p, n, out);
    for (size_t i = first; i < out.size(); ++i) out[i].id = ids_[out[i].id];
  }

  static constexpr std::string_view kEnd = "</w>", kJoin = "@@";

  static HfBpeOptions options(const std::string& unk_token) {
    HfBpeOptions o;
    o.unk_token = unk_token;
    o.end_of_word_suffix = std::string(kEnd);
    return o;
  }

  // The merge model's vocabulary: every symbol a merge names or makes, and each character of
  // the class's tokens with and without "</w>" (a word's characters before any merge), the
  // unknown token last; ids_ gets each symbol's id in the class's vocabulary.
  HfBpeModel::Vocab symbols(const Vocabulary& vocab, const HfBpeModel::Merges& merges, const std::string& unk) {
    std::unordered_map<std::string, uint32_t> by_name(vocab.begin(), vocab.end());
    const auto found = by_name.find(unk);
    if (found == by_name.end()) throw std::invalid_argument("unk_token '" + unk + "' is not in the vocabulary");
    const uint32_t unk_id = found->second;
    std::unordered_map<std::string, uint32_t> index;
    HfBpeModel::Vocab out;
    auto add = [&](const std::string& symbol) {
      if (!index.emplace(symbol, uint32_t(out.size())).second) return;
      out.emplace_back(symbol, uint32_t(out.size()));
      const bool ends =
          symbol.size() >= kEnd.size() && symbol.compare(symbol.size() - kEnd.size(), kEnd.size(), kEnd) == 0;
      const std::string name = ends ? symbol.substr(0, symbol.size() - kEnd.size()) : symbol + std::string(kJoin);
      const auto it = by_name.find(name);
      ids_.push_back(it == by_name.end() ? unk_id : it->second);
    };
    for (const auto& [a, b] : merges) {
      add(a);
      add(b);
      add(a + b);
    }
    for (const auto& [token, id] : vocab) {
      for (size_t i = 0; i < token.size();) {
        const size_t len = std::min(utf8_length(uint8_t(token[i])), token.size() - i);
        const std::string c = token.substr(i, len);
        add(c);
        add(c + std::string(kEnd));
        i += len;
      }
    }
    if (index.emplace(unk, uint32_t(out.size())).second) {  // (the merge model's unknown symbol)
      out.emplace_back(unk, uint32_t(out.size()));
      ids_.push_back(unk_id);
    }
    return out;
  }

  std::vector<uint32_t> ids_;  // by symbol, the class's id (filled before model_ is built)
  HfBpeModel model_;
};

}  // namespace tokenforge
