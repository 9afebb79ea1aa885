// One token a model produced for a piece of text: its id and the bytes of the piece it covers
// (start, end: byte offsets into the piece the model was given). Models of every kind emit these
// for the staged pipeline (pipelines/staged.h), which maps the offsets back to the input.
#pragma once
#include <cstdint>

namespace tokenforge {

struct ModelToken {
  uint32_t id;
  uint32_t start, end;
};

}  // namespace tokenforge
