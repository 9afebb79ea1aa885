// Builds a staged-pipeline model (models/model.h) from its tokenizer.json description: the type
// name, its options (pipelines/stage_options.h) without the vocabulary, and the vocabulary as
// (token, id) pairs (a BPE model's merges may come apart too). WordPiece is models/wordpiece/wordpiece_stage.h,
// WordLevel models/word_level.h, BPE models/bpe/bpe_stage.h, Unigram models/unigram/unigram_model.h (its vocabulary is
// its "vocab" option, [[piece, score], ...]). Models that no tokenizer.json names: GgufPlamo2 (models/gguf/plamo2.h,
// a GGUF file's: its "scores", null for no candidate, and its 256 "byte_tokens"), FastBPE (models/bpe/fast_bpe.h,
// PhoBERT's and CTRL's "@@" tokens: its "merges" and "unk_token").
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/bpe/bpe_stage.h"
#include "models/bpe/fast_bpe.h"
#include "models/gguf/plamo2.h"
#include "models/model.h"
#include "models/unigram/unigram_model.h"
#include "models/word_level.h"
#include "models/wordpiece/wordpiece_stage.h"
#include "pipelines/stage_options.h"

namespace tokenforge {

namespace model_makers {

using Maker = std::unique_ptr<Model> (*)(OptionReader&, const Vocabulary&);

inline std::unique_ptr<Model> wordpiece(OptionReader& o, const Vocabulary& vocab) {
  const std::string unk = o.get_string("unk_token", "[UNK]");
  const std::string prefix = o.get_string("continuing_subword_prefix", "##");
  const size_t max_chars = size_t(o.get_int("max_input_chars_per_word", 100));
  return std::make_unique<WordPieceStage>(vocab, unk, prefix, max_chars);
}
inline std::unique_ptr<Model> word_level(OptionReader& o, const Vocabulary& vocab) {
  return std::make_unique<WordLevelModel>(vocab, o.get_string("unk_token", "<unk>"));
}

inline std::unique_ptr<Model> bpe(OptionReader& o, const Vocabulary& vocab) {
  HfBpeOptions options = BpeStage::options_of(o);
  return std::make_unique<BpeStage>(vocab, BpeStage::merges_of(o), std::move(options));
}

// fastBPE's "@@" tokens (PhoBERT's, CTRL's: models/bpe/fast_bpe.h): its merges, its unknown token.
inline std::unique_ptr<Model> fast_bpe(OptionReader& o, const Vocabulary& vocab) {
  o.get("unk_token", true);
  const std::string unk = o.get_string("unk_token", "");
  return std::make_unique<FastBpeModel>(vocab, BpeStage::merges_of(o), unk);
}

inline std::unique_ptr<Model> gguf_plamo2(OptionReader& o, const Vocabulary& vocab) {
  const OptionValue& list = o.get("scores", true);
  if (list.kind != OptionValue::Kind::kList) o.fail("option 'scores' must be a list of numbers or null");
  std::vector<double> scores(list.list.size(), std::nan(""));
  for (size_t i = 0; i < list.list.size(); ++i) {
    const OptionValue& v = list.list[i];
    if (v.kind == OptionValue::Kind::kFloat)
      scores[i] = v.f;
    else if (v.kind == OptionValue::Kind::kInt)
      scores[i] = double(v.i);
    else if (v.kind != OptionValue::Kind::kNull)
      o.fail("option 'scores': entry " + std::to_string(i) + " is no number");
  }
  const OptionValue& bytes = o.get("byte_tokens", true);
  if (bytes.kind != OptionValue::Kind::kList || bytes.list.size() != 256)
    o.fail("option 'byte_tokens' must be a list of 256 ids");
  std::vector<uint32_t> byte_ids;
  for (const OptionValue& v : bytes.list) {
    if (v.kind != OptionValue::Kind::kInt || v.i < 0 || v.i >= int64_t(kNoToken))
      o.fail("option 'byte_tokens' must hold ids");
    byte_ids.push_back(uint32_t(v.i));
  }
  return std::make_unique<Plamo2Model>(vocab, scores, byte_ids);
}

inline const std::vector<std::pair<std::string, Maker>>& table() {
  static const std::vector<std::pair<std::string, Maker>> makers = {
      {"WordPiece", wordpiece},  {"WordLevel", word_level},   {"BPE", bpe},
      {"Unigram", make_unigram}, {"GgufPlamo2", gguf_plamo2}, {"FastBPE", fast_bpe}};
  return makers;
}

}  // namespace model_makers

// bpe_merges: a BPE model's merges read apart from its options (python/stage_convert.h's
// take_merges reads them straight from Python; the options then hold none), else null.
inline std::unique_ptr<Model> make_model(const std::string& type, const OptionValue& options, const Vocabulary& vocab,
                                         const HfBpeModel::Merges* bpe_merges = nullptr) {
  if (bpe_merges != nullptr && type == "BPE") {
    OptionReader reader("model BPE", options);
    std::unique_ptr<Model> out = build_named(reader, [&] {
      HfBpeOptions bpe_options = BpeStage::options_of(reader);
      return std::make_unique<BpeStage>(vocab, *bpe_merges, std::move(bpe_options));
    });
    reader.finish();
    return out;
  }
  for (const auto& [name, maker] : model_makers::table())
    if (name == type) {
      OptionReader reader("model " + type, options);
      std::unique_ptr<Model> out = build_named(reader, [&] { return maker(reader, vocab); });
      reader.finish();
      return out;
    }
  std::string known;
  for (const auto& entry : model_makers::table()) known += (known.empty() ? "" : ", ") + entry.first;
  throw std::invalid_argument("unknown model type '" + type + "' (known: " + known + ")");
}

}  // namespace tokenforge
