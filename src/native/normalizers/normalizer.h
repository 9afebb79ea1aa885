// A normalizer of the staged pipeline (pipelines/staged.h): changes the text of one piece in
// place, keeping its alignments to the input (text/normalized_text.h), as HF tokenizers'
// Normalizer trait. One header per HF type beside this one; normalizers/normalizer_factory.h
// builds them by name.
#pragma once
#include "text/normalized_text.h"

namespace tokenforge {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(NormalizedText& text) const = 0;
};

}  // namespace tokenforge
