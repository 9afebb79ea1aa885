// sentencepiece's decoder (SentencePieceProcessor::Decode), ids to text: control pieces are
// invisible, the unknown piece reads as the model's unk_surface (" ⁇ "), "▁" becomes a space,
// and runs of byte pieces (<0xNN>) join into UTF-8, each byte that starts no well-formed
// character becoming U+FFFD. The dummy prefix goes: one leading "▁" of the first piece (while
// nothing is written yet, with remove_extra_whitespaces) is dropped. Ids past the vocabulary
// name `raw` texts, each written as it is: a piece decode_pieces is given that the model lacks
// (sentencepiece writes such a piece as its text; transformers' MarianTokenizer meets them).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/sentencepiece/spm_vocab.h"

namespace tokenforge {

class SpmDecoder {
 public:
  struct Options {
    std::string unk_surface;
    bool add_dummy_prefix = true, remove_extra_whitespaces = true;
  };

  // `vocab` must outlive the decoder (the bindings keep its owner alive).
  SpmDecoder(const SpmVocab& vocab, Options options, std::vector<std::string> raw = {})
      : vocab_(vocab), options_(std::move(options)), raw_(std::move(raw)) {
    bytes_.resize(vocab.size());
    for (uint32_t id = 0; id < vocab.size(); ++id)
      if (vocab.type(id) == SpmVocab::kByte) bytes_[id] = uint8_t(std::stoi(vocab.text(id).substr(3, 2), nullptr, 16));
  }

  // The ids decode reads: the vocabulary's, then the raw texts'.
  size_t size() const { return vocab_.size() + raw_.size(); }

  // The text of ids[0..n) (each below size()); with skip_control false, control pieces show as
  // their text.
  std::string decode(const uint32_t* ids, size_t n, bool skip_control = true) const {
    std::string text, pending_bytes;
    bool at_start = true, dropped_prefix = false;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t id = ids[i];
      const bool raw = id >= vocab_.size();
      if (!raw && vocab_.type(id) == SpmVocab::kByte) {
        pending_bytes += char(bytes_[id]);
        continue;
      }
      flush_bytes(pending_bytes, text);
      if (dropped_prefix || !text.empty()) at_start = false;
      dropped_prefix = false;
      if (raw) {
        text += raw_[id - vocab_.size()];
        continue;
      }
      switch (vocab_.type(id)) {
        case SpmVocab::kControl:
          if (!skip_control) text += vocab_.text(id);
          break;
        case SpmVocab::kUnknown:
          text += options_.unk_surface;
          break;
        default: {
          std::string_view piece = vocab_.text(id);
          if (at_start && (options_.add_dummy_prefix || options_.remove_extra_whitespaces) &&
              piece.substr(0, kSpace.size()) == kSpace) {
            piece.remove_prefix(kSpace.size());
            // With remove_extra_whitespaces every leading "▁" before the first text goes.
            dropped_prefix = !options_.remove_extra_whitespaces;
          }
          append_unescaped(piece, text);
        }
      }
    }
    flush_bytes(pending_bytes, text);
    return text;
  }

 private:
  static constexpr std::string_view kSpace = "\xE2\x96\x81", kReplacement = "\xEF\xBF\xBD";

  static void append_unescaped(std::string_view piece, std::string& text) {
    for (size_t at; (at = piece.find(kSpace)) != std::string_view::npos; piece.remove_prefix(at + kSpace.size())) {
      text += piece.substr(0, at);
      text += ' ';
    }
    text += piece;
  }

  // Bytes as UTF-8: each well-formed character as it is, any other byte as U+FFFD.
  static void flush_bytes(std::string& bytes, std::string& text) {
    const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
    for (size_t i = 0; i < bytes.size();) {
      const size_t len = well_formed_length(b + i, bytes.size() - i);
      if (len)
        text.append(bytes, i, len);
      else
        text += kReplacement;
      i += len ? len : 1;
    }
    bytes.clear();
  }

  // The length of the well-formed UTF-8 character at s (shortest form, no surrogates, at most
  // U+10FFFF), or 0.
  static size_t well_formed_length(const uint8_t* s, size_t n) {
    if (s[0] < 0x80) return 1;
    size_t len;
    uint32_t cp, min;
    if ((s[0] & 0xE0) == 0xC0)
      len = 2, cp = s[0] & 0x1F, min = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
      len = 3, cp = s[0] & 0x0F, min = 0x800;
    else if ((s[0] & 0xF8) == 0xF0)
      len = 4, cp = s[0] & 0x07, min = 0x10000;
    else
      return 0;
    if (n < len) return 0;
    for (size_t k = 1; k < len; ++k) {
      if ((s[k] & 0xC0) != 0x80) return 0;
      cp = cp << 6 | (s[k] & 0x3F);
    }
    return cp >= min && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF) ? len : 0;
  }

  const SpmVocab& vocab_;
  Options options_;
  std::vector<std::string> raw_;  // the texts of the ids past the vocabulary
  std::vector<uint8_t> bytes_;    // by id: the byte a byte piece stands for
};

}  // namespace tokenforge
