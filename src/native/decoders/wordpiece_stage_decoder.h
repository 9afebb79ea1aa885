// HF's WordPiece decoder (decoders/wordpiece.rs) as a decode_chain step: a token after the first
// loses the prefix ("##", once) or gets a space in front; with cleanup, HF's replacements
// (decoders/wordpiece_decoder.h lists them) run on each token. The fused WordPiece pipeline's
// decoder is decoders/wordpiece_decoder.h.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "decoders/decoder.h"

namespace tokenforge {

// HF's wordpiece::cleanup.
inline std::string wordpiece_cleanup(std::string s) {
  static const std::pair<const char*, const char*> kCleanups[] = {
      {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
  };
  for (const auto& [dirty, clean] : kCleanups) s = rust_replace(s, dirty, clean);
  return s;
}

class WordPieceStageDecoder : public Decoder {
 public:
  WordPieceStageDecoder(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      if (i != 0) {
        if (t.compare(0, prefix_.size(), prefix_) == 0) {
          // Rust's replacen(prefix, "", 1): the first occurrence, which is at the start
          t.erase(0, prefix_.size());
        } else {
          t.insert(0, " ");
        }
      }
      if (cleanup_) t = wordpiece_cleanup(std::move(t));
    }
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

}  // namespace tokenforge
