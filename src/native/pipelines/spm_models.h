// The sentencepiece models (models/sentencepiece/spm_bpe.h and spm_unigram.h) as the encoder and
// pipeline of pipelines/spm_tokenizer.h call them: a model object as an SpmEncoder::Model
// function, and what each model reads besides normalized text (SpmReads). The Python bindings
// (python/bind_sentencepiece.cpp, python/bind_pipelines.cpp) keep the model objects alive.
#pragma once
#include <cstddef>
#include <cstdint>
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

// What a model reads: the BPE model reads escaped input as it is, and both read spaces as "▁"
// (the Unigram model where "▁" is a piece).
inline SpmReads spm_reads(const SpmBpeModel&) { return {true, true}; }
inline SpmReads spm_reads(const SpmUnigramModel& model) { return {false, model.reads_spaces_escaped()}; }

}  // namespace tokenforge
