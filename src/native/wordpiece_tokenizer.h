// The WordPiece pipeline in one pass: added tokens are matched in the raw text first (leftmost,
// longest, as HF's added vocabulary does for tokens that are not normalized); the text between
// them goes through the character rules (normalizer + pre-tokenizer) into words, and each word
// through the WordPiece model. Offsets are code-point indices into the input, as Python sees it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bert_text.h"
#include "post_processing.h"
#include "special_matcher.h"
#include "unicode_classes.h"
#include "wordpiece.h"

namespace tokenforge {

class WordPieceTokenizer {
 public:
  WordPieceTokenizer(WordPieceModel model, const TextRules& rules,
                     std::vector<std::pair<std::string, uint32_t>> added_tokens)
      : model_(std::move(model)), rules_(rules), added_(std::move(added_tokens)) {}

  PostProcessor post;

  // The model's tokens for one text (UTF-8), before post-processing.
  Encoded encode_sequence(const uint8_t* s, size_t n) const {
    Encoded e;
    Words words(*this, e.rows);
    size_t pos = 0;
    uint32_t chars = 0;  // code points before pos
    while (pos < n) {
      const SpecialMatch m = added_.find(s, n, pos);
      chars = words.text(s + pos, m.pos - pos, chars);
      if (m.len == 0) break;
      const uint32_t end = chars + count_chars(s + m.pos, m.len);
      e.rows.push(m.id, 0, chars, end, 0);
      chars = end;
      pos = m.pos + m.len;
    }
    return e;
  }

  // The words the normalizer and pre-tokenizer make of s (UTF-8, without the word prefix), each
  // with its span of input code points; added tokens are words too.
  std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> words(const uint8_t* s, size_t n) const {
    TokenRows unused;
    Words words(*this, unused);
    words.collect = true;
    size_t pos = 0;
    uint32_t chars = 0;
    while (pos < n) {
      const SpecialMatch m = added_.find(s, n, pos);
      chars = words.text(s + pos, m.pos - pos, chars);
      if (m.len == 0) break;
      const uint32_t end = chars + count_chars(s + m.pos, m.len);
      words.collected.push_back({std::string(reinterpret_cast<const char*>(s + m.pos), m.len), {chars, end}});
      chars = end;
      pos = m.pos + m.len;
    }
    return std::move(words.collected);
  }

  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special) const {
    Encoded first = encode_sequence(a, na);
    if (!pair) return post.process(std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb);
    return post.process(std::move(first), &second, add_special);
  }

 private:
  static uint32_t count_chars(const uint8_t* s, size_t n) {
    uint32_t k = 0;
    for (size_t i = 0; i < n; ++i) k += (s[i] & 0xC0) != 0x80;
    return k;
  }

  // Builds words from character-rule outputs and turns each finished word into rows.
  class Words {
   public:
    Words(const WordPieceTokenizer& t, TokenRows& rows) : t_(t), rows_(rows) {}

    bool collect = false;  // keep the words (for words()) instead of splitting them
    std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> collected;

    // Processes s[0..n) whose first character is number `chars`; returns the count after it.
    uint32_t text(const uint8_t* s, size_t n, uint32_t chars) {
      const CharRules& rules = t_.rules_;
      const uint32_t first_char = chars;
      rows_start_ = rows_.size();
      collected_start_ = collected.size();
      for (size_t i = 0; i < n;) {
        size_t len;
        const uint32_t cp = decode_utf8(s + i, n - i, len);
        if (TF_UNLIKELY(rules.needs_exact(cp))) return exact(s, n, first_char);
        rules.apply(cp, [&](uint32_t out, WordClass c) { take(out, c, chars); });
        i += len;
        ++chars;
      }
      finish();
      return chars;
    }

   private:
    // Redoes the whole span (its words so far are undone) with the exact rules.
    uint32_t exact(const uint8_t* s, size_t n, uint32_t first_char) {
      rows_.ids.resize(rows_start_);
      rows_.type_ids.resize(rows_start_);
      rows_.starts.resize(rows_start_);
      rows_.ends.resize(rows_start_);
      rows_.special.resize(rows_start_);
      rows_.attention.resize(rows_start_);
      collected.resize(collected_start_);
      word_.clear();
      origin_.clear();
      std::vector<uint32_t> cps, out, origin;
      for (size_t i = 0; i < n;) {
        size_t len;
        cps.push_back(decode_utf8(s + i, n - i, len));
        i += len;
      }
      t_.rules_.expand_exact(cps, out, origin);
      for (size_t k = 0; k < out.size(); ++k)
        take(out[k] & CharRules::kCodePoint, WordClass(out[k] >> CharRules::kClassShift), first_char + origin[k]);
      finish();
      return first_char + uint32_t(cps.size());
    }

    void take(uint32_t cp, WordClass c, uint32_t origin) {
      if (c == WordClass::kWord) {
        append(cp, origin);
      } else {
        finish();
        if (c == WordClass::kIsolated) {
          append(cp, origin);
          finish();
        }
      }
    }
    void append(uint32_t cp, uint32_t origin) {
      if (word_.empty()) {
        const std::string& prefix = t_.model_.word_prefix();
        word_.insert(word_.end(), prefix.begin(), prefix.end());
        origin_.insert(origin_.end(), prefix.size(), origin);
        word_chars_ = 0;
      }
      uint8_t buf[4];
      const size_t len = encode_utf8(cp, buf);
      word_.insert(word_.end(), buf, buf + len);
      origin_.insert(origin_.end(), len, origin);
      ++word_chars_;
    }
    void finish() {
      if (word_.empty()) return;
      const WordPieceModel& model = t_.model_;
      if (collect) {
        const size_t skip = model.word_prefix().size();
        collected.push_back({std::string(word_.begin() + skip, word_.end()), {origin_.front(), origin_.back() + 1}});
        word_.clear();
        origin_.clear();
        return;
      }
      const size_t max_chars = model.max_chars();
      pieces_.clear();
      if ((max_chars && word_chars_ > max_chars) || !model.split(word_.data(), word_.size(), pieces_)) {
        rows_.push(model.unk_id(), 0, origin_.front(), origin_.back() + 1, 0);
      } else {
        for (const auto& p : pieces_) rows_.push(p.id, 0, origin_[p.start], origin_[p.end - 1] + 1, 0);
      }
      word_.clear();
      origin_.clear();
    }
    static size_t encode_utf8(uint32_t cp, uint8_t* out) {
      if (cp < 0x80) {
        out[0] = uint8_t(cp);
        return 1;
      }
      if (cp < 0x800) {
        out[0] = uint8_t(0xC0 | (cp >> 6));
        out[1] = uint8_t(0x80 | (cp & 0x3F));
        return 2;
      }
      if (cp < 0x10000) {
        out[0] = uint8_t(0xE0 | (cp >> 12));
        out[1] = uint8_t(0x80 | ((cp >> 6) & 0x3F));
        out[2] = uint8_t(0x80 | (cp & 0x3F));
        return 3;
      }
      out[0] = uint8_t(0xF0 | (cp >> 18));
      out[1] = uint8_t(0x80 | ((cp >> 12) & 0x3F));
      out[2] = uint8_t(0x80 | ((cp >> 6) & 0x3F));
      out[3] = uint8_t(0x80 | (cp & 0x3F));
      return 4;
    }

    const WordPieceTokenizer& t_;
    TokenRows& rows_;
    size_t rows_start_ = 0, collected_start_ = 0;  // rows and words before the current span
    std::vector<uint8_t> word_;
    std::vector<uint32_t> origin_;  // per byte of word_: the input character it came from
    size_t word_chars_ = 0;
    std::vector<WordPieceModel::Piece> pieces_;
  };

  WordPieceModel model_;
  CharRules rules_;
  SpecialMatcher added_;
};

}  // namespace tokenforge
