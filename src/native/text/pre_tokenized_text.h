// The input cut into pieces on its way through the staged pipeline (pipelines/staged.h), as HF
// tokenizers' PreTokenizedString: each piece a NormalizedText (text/normalized_text.h) with its
// alignments into the input, or an added token already matched (its id known; normalizers,
// pre-tokenizers and the model pass it by). Pre-tokenizers (pre_tokenizers/pre_tokenizer.h)
// cut the pieces further with split(); empty pieces are dropped, as HF drops them.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "text/normalized_text.h"

namespace tokenforge {

struct TextPiece {
  NormalizedText text;
  bool is_added = false;  // an added token: `added_id` is its token
  uint32_t added_id = 0;
  bool grown = false;  // (an added token) lstrip or rstrip moved its span: HF shows the text it covers
};

class PreTokenizedText {
 public:
  std::vector<TextPiece>& pieces() { return pieces_; }
  const std::vector<TextPiece>& pieces() const { return pieces_; }

  void add_text(NormalizedText text) {
    if (!text.empty()) pieces_.push_back(TextPiece{std::move(text), false, 0});
  }
  void add_token(NormalizedText text, uint32_t id, bool grown) {
    pieces_.push_back(TextPiece{std::move(text), true, id, grown});
  }

  // Replaces each piece that is not an added token by the pieces split_one(text, out) appends
  // to out (HF's PreTokenizedString::split); empty ones are dropped.
  template <class F>
  void split(F&& split_one) {
    std::vector<TextPiece> next;
    next.reserve(pieces_.size());
    std::vector<NormalizedText> parts;
    for (TextPiece& piece : pieces_) {
      if (piece.is_added) {
        next.push_back(std::move(piece));
        continue;
      }
      parts.clear();
      split_one(std::move(piece.text), parts);
      for (NormalizedText& part : parts)
        if (!part.empty()) next.push_back(TextPiece{std::move(part), false, 0});
    }
    pieces_ = std::move(next);
  }

  // Applies f(NormalizedText&) to each piece that is not an added token (HF's normalize).
  template <class F>
  void normalize(F&& f) {
    for (TextPiece& piece : pieces_)
      if (!piece.is_added) f(piece.text);
  }

 private:
  std::vector<TextPiece> pieces_;
};

}  // namespace tokenforge
