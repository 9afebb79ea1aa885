// sentencepiece's `.model` file (a protocol-buffers ModelProto), the part too large to read
// field by field in Python: its pieces (field 1, each a message of text, score and type).
// tokenforge/formats/sentencepiece_model.py reads the rest (the trainer and normalizer specs,
// small messages) with formats/protobuf.py and calls this through python/bind_sentencepiece.cpp.
//
// The wire format is checked as protobuf.py checks it, with the same words: a varint or value
// that runs past the end, a varint of more than 10 bytes, field number 0, a wire type the
// format never uses; then each piece's fields (text as strict UTF-8, score a 32-bit float, type
// one of sentencepiece's six). The first problem is reported with where it lies ("ModelProto",
// or "piece N" with byte offsets inside that piece's message), never a read past the end.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/utf8.h"

namespace tokenforge {

// A piece: its text at [start, start + length) of the file, score and type (1 to 6).
struct SpmPieceRecord {
  size_t start = 0, length = 0;
  float score = 0.0f;
  uint8_t type = 1;
};

// A top-level field other than a piece: a varint or fixed value in `value`, or the bytes at
// [start, start + length) of the file (wire type 2).
struct SpmOtherField {
  uint64_t number = 0;
  uint8_t wire_type = 0;
  uint64_t value = 0;
  size_t start = 0, length = 0;
};

struct SpmModelRecords {
  std::vector<SpmPieceRecord> pieces;
  std::vector<SpmOtherField> others;  // in file order
  std::string error_where, error;     // the first problem, if any (then the rest is partial)
};

namespace spm_wire {

enum : uint8_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

// One field of the message at data[0, size): number, wire type, and its value or span.
struct Field {
  uint64_t number = 0;
  uint8_t wire_type = 0;
  uint64_t value = 0;
  size_t start = 0, length = 0;
};

// Reads a varint at `pos`; false with `error` set where it runs past the end or is too long.
inline bool varint(const uint8_t* data, size_t size, size_t& pos, uint64_t& value, std::string& error) {
  const size_t start = pos;
  value = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (shift >= 64) {
      error = "varint at byte " + std::to_string(start) + " is longer than 10 bytes (corrupt data)";
      return false;
    }
    if (pos >= size) {
      error = "varint at byte " + std::to_string(start) + " runs past the end of the data (truncated file?)";
      return false;
    }
    const uint8_t b = data[pos++];
    value |= uint64_t(b & 0x7F) << shift;
    if (!(b & 0x80)) return true;
  }
}

// The next field at `pos` (advanced past it); false with `error` set for a malformed one.
inline bool next_field(const uint8_t* data, size_t size, size_t& pos, Field& f, std::string& error) {
  const size_t key_at = pos;
  uint64_t key = 0;
  if (!varint(data, size, pos, key, error)) return false;
  f.number = key >> 3;
  f.wire_type = uint8_t(key & 7);
  auto field = [&] { return "field " + std::to_string(f.number) + " at byte " + std::to_string(key_at); };
  if (f.number == 0) {
    error = "field number 0 at byte " + std::to_string(key_at) + " (corrupt data)";
    return false;
  }
  switch (f.wire_type) {
    case kVarint:
      return varint(data, size, pos, f.value, error);
    case kFixed64:
    case kFixed32: {
      const size_t n = f.wire_type == kFixed64 ? 8 : 4;
      if (size - pos < n) {
        error = field() + " runs past the end (truncated file?)";
        return false;
      }
      f.value = 0;
      for (size_t k = 0; k < n; ++k) f.value |= uint64_t(data[pos + k]) << (8 * k);
      pos += n;
      return true;
    }
    case kBytes: {
      uint64_t length = 0;
      if (!varint(data, size, pos, length, error)) return false;
      if (length > size - pos) {
        error = field() + " claims " + std::to_string(length) + " bytes, past the end (truncated file?)";
        return false;
      }
      f.start = pos;
      f.length = size_t(length);
      pos += f.length;
      return true;
    }
    default:
      error =
          field() + " has wire type " + std::to_string(f.wire_type) + ", which this format never uses (corrupt data)";
      return false;
  }
}

// One piece's message at data[0, size) (offsets in errors are inside it). The whole message's
// wire format first, then its fields' meaning in order, then the text's presence: the order in
// which a message read by protobuf.py, then interpreted, shows its problems.
inline bool piece(const uint8_t* data, size_t size, size_t base, SpmPieceRecord& out, std::string& error) {
  std::string meaning;  // the first problem with a field's meaning, reported after the wire's
  bool has_text = false;
  out = SpmPieceRecord{};
  Field f;
  for (size_t pos = 0; pos < size;) {
    if (!next_field(data, size, pos, f, error)) return false;
    if (!meaning.empty() || f.number < 1 || f.number > 3) continue;
    const uint8_t expected = f.number == 1 ? kBytes : f.number == 2 ? kFixed32 : kVarint;
    if (f.wire_type != expected) {
      meaning = "field " + std::to_string(f.number) + " has wire type " + std::to_string(f.wire_type) + ", expected " +
                std::to_string(expected) + " (corrupt data)";
    } else if (f.number == 1) {
      if (utf8_error_at(data + f.start, f.length) != f.length) {
        meaning = "field 1 is not valid UTF-8 text (corrupt data)";
      } else {
        out.start = base + f.start;
        out.length = f.length;
        has_text = true;
      }
    } else if (f.number == 2) {
      const uint32_t raw = uint32_t(f.value);
      std::memcpy(&out.score, &raw, sizeof raw);
    } else if (f.value < 1 || f.value > 6) {
      meaning = "unknown piece type " + std::to_string(f.value);
    } else {
      out.type = uint8_t(f.value);
    }
  }
  if (meaning.empty() && (!has_text || out.length == 0)) meaning = "a piece must have non-empty text";
  error = meaning;
  return meaning.empty();
}

}  // namespace spm_wire

// The pieces and other top-level fields of the ModelProto in data[0, size): the top level's
// wire format first, then each piece's message in order (as protobuf.py reads them).
inline SpmModelRecords read_spm_model_records(const uint8_t* data, size_t size) {
  SpmModelRecords out;
  std::vector<spm_wire::Field> pieces;
  spm_wire::Field f;
  for (size_t pos = 0; pos < size;) {
    if (!spm_wire::next_field(data, size, pos, f, out.error)) {
      out.error_where = "ModelProto";
      return out;
    }
    if (f.number == 1 && f.wire_type == spm_wire::kBytes)
      pieces.push_back(f);
    else
      out.others.push_back({f.number, f.wire_type, f.value, f.start, f.length});
  }
  out.pieces.resize(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!spm_wire::piece(data + pieces[i].start, pieces[i].length, pieces[i].start, out.pieces[i], out.error)) {
      out.error_where = "piece " + std::to_string(i);
      out.pieces.resize(i);
      return out;
    }
  }
  return out;
}

}  // namespace tokenforge
