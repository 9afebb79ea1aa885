// A sentencepiece vocabulary (pieces with scores and types), shared by its BPE and Unigram models.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/hash_tables.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

// A sentencepiece vocabulary: pieces by id with scores and types. Normal, user-defined and
// unused pieces are what models may produce; the others (unknown, control, byte) come only from
// the rules around them. Turns a model's final symbols into ids: an unknown symbol becomes its UTF-8
// bytes as <0xNN> pieces with byte fallback, else the unknown id, a run of them one id (as
// sentencepiece merges them).
class SpmVocab {
 public:
  enum Type : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

  SpmVocab(std::vector<std::string> pieces, std::vector<float> scores, std::vector<uint8_t> types, bool byte_fallback)
      : texts_(std::move(pieces)), scores_(std::move(scores)), types_(std::move(types)), byte_fallback_(byte_fallback) {
    if (scores_.size() != texts_.size() || types_.size() != texts_.size())
      throw std::invalid_argument("pieces, scores and types differ in length");
    byte_ids_.fill(kNone);
    producible_.resize(texts_.size(), {nullptr, 0});
    for (uint32_t id = 0; id < texts_.size(); ++id) {
      const std::string_view text = texts_[id];
      const uint8_t t = types_[id];
      if (t < kNormal || t > kByte) throw std::invalid_argument("piece " + std::to_string(id) + " has an unknown type");
      if (producible(t)) producible_[id] = {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
      if (t == kUnknown) unk_id_ = id;
      if (t == kUserDefined) user_defined_.push_back(text);
      if (t == kByte) {
        if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>')
          throw std::invalid_argument("byte piece " + std::to_string(id) + " is not of the form <0xNN>");
        byte_ids_[std::stoi(std::string(text.substr(3, 2)), nullptr, 16)] = id;
      }
    }
    if (unk_id_ == kNone) throw std::invalid_argument("the model has no unknown piece");
    pieces_.build(producible_);
  }

  // The tables hold views of the piece texts: moving keeps them valid (the strings and the
  // views stay where they are), copying would not.
  SpmVocab(const SpmVocab&) = delete;
  SpmVocab& operator=(const SpmVocab&) = delete;
  SpmVocab(SpmVocab&&) = default;

  static bool producible(uint8_t type) { return type == kNormal || type == kUserDefined || type == kUnused; }
  size_t size() const { return texts_.size(); }
  const std::string& text(uint32_t id) const { return texts_[id]; }
  float score(uint32_t id) const { return scores_[id]; }
  uint8_t type(uint32_t id) const { return types_[id]; }
  uint32_t unk_id() const { return unk_id_; }
  const std::vector<std::string_view>& user_defined() const { return user_defined_; }

  // The id of a producible piece, or kNone.
  uint32_t find(std::string_view piece) const {
    return piece.empty() ? kNone : pieces_.find(reinterpret_cast<const uint8_t*>(piece.data()), piece.size());
  }

  // Length of the symbol at the start of s: a user-defined symbol (longest), else one character.
  size_t symbol_length(std::string_view s, bool& user_defined) const {
    size_t best = 0;
    for (std::string_view u : user_defined_)
      if (u.size() > best && s.substr(0, u.size()) == u) best = u.size();
    user_defined = best > 0;
    if (best) return best;
    const uint8_t b = uint8_t(s[0]);
    return std::min(utf8_length(b), s.size());
  }

  // Appends the ids of final symbol `piece` (id: its id) to ids; ids[first..] are this text's.
  // With `lengths`, also how many normalized bytes each id covers (for offsets).
  void emit(uint32_t id, std::string_view piece, size_t first, std::vector<uint32_t>& ids,
            std::vector<uint32_t>* lengths = nullptr) const {
    const size_t at = ids.size(), room = std::max<size_t>(piece.size(), 1);
    ids.resize(at + room);
    uint32_t* length = nullptr;
    if (lengths) {
      lengths->resize(lengths->size() + room);
      length = lengths->data() + lengths->size() - room;
    }
    const size_t written = write(id, piece, ids.data() + first, ids.data() + at, length);
    ids.resize(at + written);
    if (lengths) lengths->resize(lengths->size() - room + written);
  }

  // emit() into buffers: writes the ids of final symbol `piece` at `end` (room for
  // max(piece.size(), 1)), this text's ids starting at `first`, and with `lengths` (in step with
  // the ids) the bytes each covers. Returns how many it wrote: none where an unknown continues
  // a run of them (the run covers more).
  size_t write(uint32_t id, std::string_view piece, const uint32_t* first, uint32_t* end, uint32_t* lengths) const {
    if (id == unk_id_ && byte_fallback_) {
      for (size_t i = 0; i < piece.size(); ++i) {
        const uint32_t byte = byte_ids_[uint8_t(piece[i])];
        end[i] = byte != kNone ? byte : unk_id_;
        if (lengths) lengths[i] = 1;
      }
      return piece.size();
    }
    if (continues_unknown_run(id, end > first ? end[-1] : kNone)) {
      if (lengths) lengths[-1] += uint32_t(piece.size());
      return 0;
    }
    *end = id;
    if (lengths) *lengths = uint32_t(piece.size());
    return 1;
  }

  // Whether an unknown's bytes are written as their byte pieces (where all exist).
  bool byte_fallback() const { return byte_fallback_; }

  // Whether id is an unknown that extends a run of them (the run is one id), given the previous
  // id of this text (kNone if none). An unknown id only comes from unknown symbols, so a run
  // shows as the previous id.
  bool continues_unknown_run(uint32_t id, uint32_t previous) const {
    return id == unk_id_ && !byte_fallback_ && previous == unk_id_;
  }

  static constexpr uint32_t kNone = kNoToken;

 private:
  std::vector<std::string> texts_;
  std::vector<float> scores_;
  std::vector<uint8_t> types_;
  bool byte_fallback_;
  std::vector<std::pair<const uint8_t*, size_t>> producible_;  // by id; empty for the others
  BytesTable pieces_;                                          // producible pieces
  std::vector<std::string_view> user_defined_;
  std::array<uint32_t, 256> byte_ids_;
  uint32_t unk_id_ = kNone;
};

}  // namespace tokenforge
