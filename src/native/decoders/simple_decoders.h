// HF's small decoders, each a decode_chain step: Fuse (all tokens joined into one), Strip
// (`content` cut up to `start` times from the left and `stop` times from the right of each
// token), Replace with a string pattern (decoders' Replace: leftmost, not overlapping), BPEDecoder
// (the suffix read as a space, or nothing in the last token) and CTC (repeated tokens collapsed,
// the pad token dropped, then with cleanup HF's WordPiece cleanup and the word delimiter read as a
// space; empty tokens dropped).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "decoders/decoder.h"
#include "pre_tokenizers/regex.h"
#include "decoders/wordpiece_stage_decoder.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class FuseDecoder : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    tokens.assign(1, std::move(all));
  }
};

class StripDecoder : public Decoder {
 public:
  StripDecoder(uint32_t content, size_t start, size_t stop) : content_(content), start_(start), stop_(stop) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::pair<uint32_t, size_t>> chars;  // code point, byte offset
    for (std::string& t : tokens) {
      chars.clear();
      const auto* s = reinterpret_cast<const uint8_t*>(t.data());
      for (size_t i = 0; i < t.size();) {
        size_t len;
        chars.emplace_back(decode_utf8(s + i, t.size() - i, len), i);
        i += len;
      }
      size_t start_cut = 0;
      for (size_t i = 0; i < chars.size() && i < start_; ++i) {
        if (chars[i].first != content_) break;
        start_cut = i + 1;
      }
      size_t stop_cut = chars.size();
      for (size_t i = 0; i < stop_ && i < chars.size(); ++i) {
        const size_t index = chars.size() - i - 1;
        if (chars[index].first != content_) break;
        stop_cut = index;
      }
      if (stop_cut < start_cut) stop_cut = start_cut;  // (HF panics here)
      const size_t from = start_cut < chars.size() ? chars[start_cut].second : t.size();
      const size_t to = stop_cut < chars.size() ? chars[stop_cut].second : t.size();
      t = t.substr(from, to - from);
    }
  }

 private:
  uint32_t content_;
  size_t start_, stop_;
};

class ReplaceDecoder : public Decoder {
 public:
  // regex: the compiled pattern when it is a regex (nullptr for a string pattern).
  ReplaceDecoder(std::string pattern, std::string content, std::shared_ptr<const Regex> regex = nullptr)
      : pattern_(std::move(pattern)), content_(std::move(content)), regex_(std::move(regex)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    if (!regex_) {
      for (std::string& t : tokens) t = rust_replace(t, pattern_, content_);
      return;
    }
    std::vector<MatchSpan> spans;
    for (std::string& t : tokens) {  // each match becomes content, the rest stays (HF's decode_chain)
      spans.clear();
      regex_->find_matches(t.data(), t.size(), spans);
      std::string out;
      for (const MatchSpan& m : spans) {
        if (m.is_match)
          out += content_;
        else
          out.append(t, m.start, m.end - m.start);
      }
      t = std::move(out);
    }
  }

 private:
  std::string pattern_, content_;
  std::shared_ptr<const Regex> regex_;
};

class BpeDecoder : public Decoder {
 public:
  explicit BpeDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i)
      tokens[i] = rust_replace(tokens[i], suffix_, i + 1 == tokens.size() ? "" : " ");
  }

 private:
  std::string suffix_;
};

class CtcDecoder : public Decoder {
 public:
  CtcDecoder(std::string pad, std::string delimiter, bool cleanup)
      : pad_(std::move(pad)), delimiter_(std::move(delimiter)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0 && tokens[i] == tokens[i - 1]) continue;  // dedup
      std::string t = rust_replace(tokens[i], pad_, "");
      if (cleanup_) t = rust_replace(wordpiece_cleanup(std::move(t)), delimiter_, " ");
      if (!t.empty()) out.push_back(std::move(t));
    }
    tokens = std::move(out);
  }

 private:
  std::string pad_, delimiter_;
  bool cleanup_;
};

}  // namespace tokenforge
