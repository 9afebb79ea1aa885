// HF's Sequence decoder: its decoders' decode_chain steps, in order.
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "decoders/decoder.h"

namespace tokenforge {

class DecoderSequence : public Decoder {
 public:
  explicit DecoderSequence(std::vector<std::unique_ptr<Decoder>> parts) : parts_(std::move(parts)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (const auto& p : parts_) p->decode_chain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> parts_;
};

}  // namespace tokenforge
