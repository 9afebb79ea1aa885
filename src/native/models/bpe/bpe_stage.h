// HF's BPE model (models/bpe/hf_bpe_model.h) as a model of the staged pipeline (models/model.h):
// the options of tokenizer.json's "model" read by models/model_factory.h, merges as "a b"
// strings or as [a, b] pairs (HF reads both; a string must hold exactly one space), each piece
// tokenized by the merge model. Byte offsets past the piece (byte fallback of a continuing
// prefix or end-of-word suffix spells the affix too) are clamped to the piece.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/bpe/hf_bpe_model.h"
#include "models/model.h"
#include "pipelines/stage_options.h"

namespace tokenforge {

class BpeStage : public Model {
 public:
  BpeStage(const Vocabulary& vocab, const HfBpeModel::Merges& merges, HfBpeOptions options)
      : model_(vocab, merges, std::move(options)) {}

  // (Byte-fallback tokens of an affix's bytes may end past the piece, as HF's: the caller maps
  // such offsets as HF does, NormalizedText::to_original.)
  void tokenize(const std::string& piece, std::vector<ModelToken>& out) const override {
    model_.tokenize(piece.data(), piece.size(), out);
  }
  void tokenize_view(std::string_view piece, std::string&, std::vector<ModelToken>& out) const override {
    model_.tokenize(piece.data(), piece.size(), out);
  }

  // The merges of a tokenizer.json model: ["a b", ...] or [["a", "b"], ...].
  static HfBpeModel::Merges merges_of(OptionReader& o) {
    const OptionValue& list = o.get("merges", false);
    HfBpeModel::Merges merges;
    if (list.kind == OptionValue::Kind::kNull) return merges;
    if (list.kind != OptionValue::Kind::kList) o.fail("option 'merges' must be a list");
    merges.reserve(list.list.size());
    for (size_t k = 0; k < list.list.size(); ++k) {
      const OptionValue& m = list.list[k];
      if (m.kind == OptionValue::Kind::kString) {
        const size_t space = m.s.find(' ');
        if (space == std::string::npos || m.s.find(' ', space + 1) != std::string::npos)
          o.fail("merges[" + std::to_string(k) + "] '" + m.s + "' must be two tokens separated by one space");
        merges.emplace_back(m.s.substr(0, space), m.s.substr(space + 1));
      } else if (m.kind == OptionValue::Kind::kList && m.list.size() == 2 &&
                 m.list[0].kind == OptionValue::Kind::kString && m.list[1].kind == OptionValue::Kind::kString) {
        merges.emplace_back(m.list[0].s, m.list[1].s);
      } else {
        o.fail("merges[" + std::to_string(k) + "] must be \"a b\" or [\"a\", \"b\"]");
      }
    }
    return merges;
  }

  static HfBpeOptions options_of(OptionReader& o) {
    HfBpeOptions options;
    auto optional_string = [&](const char* key) -> std::optional<std::string> {
      const OptionValue& v = o.get(key, false);
      if (v.kind == OptionValue::Kind::kNull) return std::nullopt;
      if (v.kind != OptionValue::Kind::kString) o.fail(std::string("option '") + key + "' must be a string or null");
      return v.s;
    };
    options.unk_token = optional_string("unk_token");
    options.continuing_subword_prefix = optional_string("continuing_subword_prefix");
    options.end_of_word_suffix = optional_string("end_of_word_suffix");
    options.fuse_unk = o.get_bool("fuse_unk", false);
    options.byte_fallback = o.get_bool("byte_fallback", false);
    options.ignore_merges = o.get_bool("ignore_merges", false);
    const OptionValue& dropout = o.get("dropout", false);
    if (dropout.kind == OptionValue::Kind::kFloat || dropout.kind == OptionValue::Kind::kInt) {
      const double p = dropout.kind == OptionValue::Kind::kFloat ? dropout.f : double(dropout.i);
      if (!(p >= 0.0 && p <= 1.0)) o.fail("option 'dropout' must be between 0 and 1, inclusive");
      if (p > 0.0) options.dropout = float(p);
    } else if (dropout.kind != OptionValue::Kind::kNull) {
      o.fail("option 'dropout' must be a number or null");
    }
    return options;
  }

 private:
  HfBpeModel model_;
};

}  // namespace tokenforge
