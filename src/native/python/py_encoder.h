// The Encoder class of tokenforge._core: a byte-level BPE encoder (pipelines/encoder.h, tiktoken's
// model) behind Python calls. Its methods are bound, and defined, in python/bind_encoding.cpp; the
// class is here because other bindings take an Encoder too (ByteLevelBpe in
// python/bind_pipelines.cpp, BpeTrainer's base vocabulary in python/bind_trainers.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "added_tokens/special_matcher.h"
#include "pipelines/encoder.h"
#include "python/convert.h"

namespace tokenforge::bindings {

class PyEncoder {
 public:
  const Encoder& encoder() const { return enc_; }

  PyEncoder(std::vector<std::string> tokens, std::vector<std::pair<std::string, uint32_t>> specials, int pattern)
      : enc_(std::move(tokens), std::move(specials), pattern), ints_(IdInts::instance()) {
    ints_.cover(enc_.id_limit());
  }

  nb::object encode(nb::handle text, const SpecialMatcher* allowed) const;
  nb::object encode_batch(nb::handle texts, const SpecialMatcher* allowed, size_t threads) const;
  nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>> encode_to_numpy(nb::handle text, const SpecialMatcher* allowed) const;
  nb::tuple encode_batch_padded(nb::handle texts, const SpecialMatcher* allowed, size_t threads, size_t max_length,
                                uint32_t pad_id, bool pad_left) const;

  // ids plus, for each token, the index of the character holding its first byte and the byte
  // offset of that first byte: three bytes objects of native uint32 values (4 bytes a token: a
  // list costs 40 for each offset, which for a text of 200 MB is 9 GB), which the Python layer
  // wraps as read-only sequences (tokenforge.packed.PackedInts).
  nb::tuple encode_with_offsets(nb::handle text, const SpecialMatcher* allowed) const;

  // Pieces already split by the caller's pattern (for patterns without a built-in scanner).
  nb::object encode_pieces(nb::handle pieces) const;
  nb::object encode_byte_piece(nb::bytes piece) const;

  nb::bytes decode_bytes(nb::handle ids_seq) const;
  nb::object token_bytes(uint32_t id) const;

  // Id of exactly these bytes as one ordinary token, or None.
  nb::object find(nb::bytes b) const;

  nb::list ordinary_tokens() const { return bytes_list(enc_.model().tokens()); }
  size_t rank_count() const { return enc_.model().size(); }
  size_t token_count() const { return enc_.token_count(); }
  bool has_scanner() const { return enc_.has_scanner(); }

 private:
  Encoder enc_;
  IdInts& ints_;
};

}  // namespace tokenforge::bindings
