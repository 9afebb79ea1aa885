// The sentencepiece models (models/sentencepiece/spm_bpe.h and spm_unigram.h) as the encoder and
// pipeline of pipelines/spm_tokenizer.h call them: a model object as an SpmEncoder::Model
// function, and what each model reads besides normalized text (SpmReads). The Python bindings
// (python/bind_sentencepiece.cpp, python/bind_pipelines.cpp) keep the model objects alive.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/sentencepiece/spm_bpe.h"
#include "models/sentencepiece/spm_unigram.h"
#include "normalizers/spm_normalizer.h"
#include "pipelines/spm_tokenizer.h"

namespace tokenforge {

// A model object as SpmEncoder calls it; `model` must outlive the function.
template <class Model>
SpmEncoder::Model spm_model_function(const Model& model) {
  return [&model](const uint8_t* s, size_t n, SpmEscaping how, std::vector<uint32_t>& ids,
                  std::vector<uint32_t>* lengths) { model.encode(s, n, ids, lengths, how); };
}

// The Unigram model's, with its Fused: normalizer and cut in one pass (SpmUnigramModel::Fused).
inline SpmEncoder::Model spm_model_function(const SpmUnigramModel& model) {
  SpmEncoder::Model m = [&model](const uint8_t* s, size_t n, SpmEscaping how, std::vector<uint32_t>& ids,
                                 std::vector<uint32_t>* lengths) { model.encode(s, n, ids, lengths, how); };
  m.fuse = [&model](const SpmNormalizer& normalizer, bool spaces_as_is) -> SpmEncoder::Fused {
    if (!normalizer.cuts_as_it_goes(spaces_as_is)) return {};
    auto fused = std::make_shared<const SpmUnigramModel::Fused>(normalizer, model, spaces_as_is);
    return [&model, fused](const uint8_t* s, size_t n, std::string& normalized, std::vector<uint32_t>& ids,
                           std::vector<uint32_t>* lengths, DefaultInitVector<uint32_t>* norm_to_orig,
                           uint32_t* characters) {
      return model.encode_normalizing(*fused, s, n, normalized, ids, lengths, norm_to_orig, characters);
    };
  };
  return m;
}

// What a model reads: the BPE model reads escaped input as it is, and both read spaces as "▁"
// (the Unigram model where "▁" is a piece).
inline SpmReads spm_reads(const SpmBpeModel&) { return {true, true}; }
inline SpmReads spm_reads(const SpmUnigramModel& model) { return {false, model.reads_spaces_escaped()}; }

}  // namespace tokenforge
