// A pattern's verdict on a stretch of text: the bytes [start, end) either match the pattern or
// lie between matches. A pattern (a string, a character class, a regex: pre_tokenizers/regex.h)
// cuts a text into such spans, in order, covering it whole, as HF tokenizers' Pattern::find_matches
// does; the Split pre-tokenizer then keeps, drops or merges them by its behaviour.
#pragma once
#include <cstdint>

namespace tokenforge {

struct MatchSpan {
  uint32_t start, end;
  bool is_match;
};

}  // namespace tokenforge
