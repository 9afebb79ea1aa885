// A model of the staged pipeline (pipelines/staged.h): turns one piece of normalized,
// pre-tokenized text into tokens (models/model_token.h), as HF tokenizers' Model::tokenize. The
// vocabulary comes as (token, id) pairs, as tokenizer.json's "vocab". models/model_factory.h
// builds them by name; WordPiece is models/wordpiece/wordpiece_stage.h, WordLevel
// models/word_level.h.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/model_token.h"

namespace tokenforge {

using Vocabulary = std::vector<std::pair<std::string, uint32_t>>;

class Model {
 public:
  virtual ~Model() = default;
  // Appends the tokens of piece (non-empty UTF-8) to out; offsets are bytes of the piece.
  virtual void tokenize(const std::string& piece, std::vector<ModelToken>& out) const = 0;
  // The same for a piece that is a view into a longer text (the staged pipeline's pieces are
  // spans of one normalized text): copied into `scratch` for tokenize, unless the model reads
  // the bytes where they are (BpeStage).
  virtual void tokenize_view(std::string_view piece, std::string& scratch, std::vector<ModelToken>& out) const {
    scratch.assign(piece.data(), piece.size());
    tokenize(scratch, out);
  }
  // The ids alone of tokenize_view's tokens, appended to ids (`tokens`: scratch room for them),
  // for the ids-first path; a model whose pieces are one token each gives the id straight.
  virtual void tokenize_ids(std::string_view piece, std::string& scratch, std::vector<ModelToken>& tokens,
                            std::vector<uint32_t>& ids) const {
    tokens.clear();
    tokenize_view(piece, scratch, tokens);
    for (const ModelToken& tok : tokens) ids.push_back(tok.id);
  }
};

}  // namespace tokenforge
