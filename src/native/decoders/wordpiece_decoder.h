// WordPiece tokens back to text, as HF tokenizers' WordPiece decoder (decoders/wordpiece.rs)
// and llama.cpp's WPM detokenizer. The Python components that describe them are
// tokenforge/decoders/wordpiece.py; the pipeline that uses them is pipelines/wordpiece_tokenizer.h.
//
// WordPiece: a token that starts with the continuation prefix ("##") joins the one before it
// (the prefix dropped, once); any other token after the first starts with a space. With
// cleanup, each token (its leading space included) then goes through HF's replacements in
// order: " ." -> ".", " ?" -> "?", " !" -> "!", " ," -> ",", " ' " -> "'", " n't" -> "n't",
// " 'm" -> "'m", " do not" -> " don't", " 's" -> "'s", " 've" -> "'ve", " 're" -> "'re".
// WPM: the pieces joined, "▁" read as a space (the leading one kept, as llama.cpp's detokenize
// keeps it for a WPM vocabulary; its clean_spaces pass is the pipeline's option clean_spaces).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tokenforge {

class WordPieceDecoder {
 public:
  enum class Kind { kWordPiece, kWpm };

  WordPieceDecoder() = default;
  WordPieceDecoder(Kind kind, std::string prefix, bool cleanup)
      : kind_(kind), prefix_(std::move(prefix)), cleanup_(cleanup) {}

  // The text of tokens, given as pointers to their names.
  std::string decode(const std::vector<const std::string*>& tokens) const {
    std::string out;
    if (kind_ == Kind::kWpm) {
      for (const std::string* t : tokens) out += *t;
      replace_all(out, "\xE2\x96\x81", " ");  // "▁"
      return out;
    }
    std::string token;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string& t = *tokens[i];
      if (i == 0) {
        token = t;
      } else if (!prefix_.empty() && t.compare(0, prefix_.size(), prefix_) == 0) {
        token.assign(t, prefix_.size(), std::string::npos);
      } else {
        token = " " + t;
      }
      if (cleanup_)
        for (const auto& [dirty, clean] : kCleanups) replace_all(token, dirty, clean);
      out += token;
    }
    return out;
  }

 private:
  // Every occurrence of `from` in s, left to right and not overlapping, replaced by `to` (Rust's
  // str::replace).
  static void replace_all(std::string& s, const std::string& from, const std::string& to) {
    if (s.size() < from.size()) return;
    std::string out;
    size_t at = 0;
    for (size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size()) {
      out.append(s, at, hit - at);
      out += to;
    }
    if (at == 0) return;
    out.append(s, at, std::string::npos);
    s = std::move(out);
  }

  static inline const std::pair<std::string, std::string> kCleanups[] = {
      {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
  };

  Kind kind_ = Kind::kWordPiece;
  std::string prefix_ = "##";
  bool cleanup_ = true;
};

}  // namespace tokenforge
