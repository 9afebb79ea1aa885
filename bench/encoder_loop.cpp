// The tiktoken-style Encoder (pipelines/encoder.h: built-in scanner, piece caches, merges) in a
// plain C++ loop, without Python: for comparing two builds of the native code by instruction
// counts, which stay put on a loaded machine where wall time does not. The corpus is cut into
// 8 KB documents as bench/encode.py cuts it, and each is encoded as encode_ordinary does. Not
// part of the build:
//
//   g++ -std=c++17 -O3 -march=x86-64-v2 -g -Isrc/native bench/encoder_loop.cpp -o /tmp/eloop
//   MEASURE=2 valgrind --tool=callgrind --instr-atstart=no /tmp/eloop \
//       /work/shared/vocab/o200k_base.tiktoken 2 /work/shared/corpus/man/es.txt 0.25 3
//
// Arguments: a .tiktoken file, its pattern (1 cl100k, 2 o200k), a corpus, MB to read, passes.
// MEASURE=k has callgrind count pass k alone (1: the cold first pass); without it each pass's
// CPU time is printed.
#include <time.h>
#include <valgrind/callgrind.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "formats/tiktoken_file.h"
#include "pipelines/encoder.h"
using namespace tokenforge;

static double cpu() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static std::string slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s vocab.tiktoken pattern corpus mb passes\n", argv[0]);
    return 2;
  }
  const std::string vocab = slurp(argv[1]);
  Encoder enc(parse_tiktoken(vocab, ~uint64_t(0)), {}, std::atoi(argv[2]));
  std::string text = slurp(argv[3]);
  const size_t limit = size_t(std::atof(argv[4]) * 1e6);
  auto cut = [&](size_t e) {
    while (e > 0 && e < text.size() && (uint8_t(text[e]) & 0xC0) == 0x80) --e;
    return e;
  };
  if (limit && text.size() > limit) text.resize(cut(limit));
  std::vector<std::pair<size_t, size_t>> docs;
  for (size_t i = 0; i < text.size();) {
    size_t j = cut(std::min(i + 8192, text.size()));
    if (j <= i) j = std::min(i + 8192, text.size());
    docs.push_back({i, j});
    i = j;
  }
  const int passes = std::atoi(argv[5]);
  const int measure = std::getenv("MEASURE") ? std::atoi(std::getenv("MEASURE")) : -1;
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  size_t tokens = 0;
  uint64_t sum = 0;  // of every id in order, to compare builds
  for (int pass = 1; pass <= passes; ++pass) {
    if (pass == measure) CALLGRIND_START_INSTRUMENTATION;
    const double t0 = cpu();
    tokens = 0;
    sum = 0;
    for (const auto& [a, b] : docs) {
      std::vector<uint32_t> ids;
      enc.encode(s + a, b - a, nullptr, ids);
      tokens += ids.size();
      for (const uint32_t id : ids) sum = (sum ^ id) * 0x100000001B3ull;
    }
    const double t1 = cpu();
    if (pass == measure) CALLGRIND_STOP_INSTRUMENTATION;
    if (measure < 0) std::printf("pass %d: %.1f MB/s, %zu tokens\n", pass, text.size() / (t1 - t0) / 1e6, tokens);
  }
  std::printf("%zu bytes, %zu docs, %zu tokens, ids sum %016llx\n", text.size(), docs.size(), tokens,
              (unsigned long long)sum);
}
