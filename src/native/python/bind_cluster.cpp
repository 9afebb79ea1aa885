// Bindings for running training on a cluster (tokenforge/cluster.py): the chunk table of
// trainers/chunk_counts.h to and from one byte string (trainers/chunk_counts_wire.h), which is
// what a worker sends back. ChunkCounts itself is bound in python/bind_trainers.cpp.
#include <cstdint>
#include <string>
#include <nanobind/nanobind.h>

#include "python/bindings.h"
#include "python/convert.h"
#include "trainers/chunk_counts_wire.h"

namespace tokenforge::bindings {

void bind_cluster(nb::module_& m) {
  m.def(
      "dump_chunk_counts",
      [](const ChunkCounts& counts) {
        std::string out;
        {
          nb::gil_scoped_release nogil;
          out = dump_chunk_counts(counts);
        }
        return nb::bytes(out.data(), out.size());
      },
      nb::arg("counts"), "The chunk table as one byte string (add_dumped_chunk_counts reads it back).");
  m.def(
      "add_dumped_chunk_counts",
      [](ChunkCounts& counts, nb::bytes data) {
        const auto* p = reinterpret_cast<const uint8_t*>(data.c_str());
        const size_t n = data.size();
        nb::gil_scoped_release nogil;
        add_dumped_chunk_counts(counts, p, n);
      },
      nb::arg("counts"), nb::arg("data"),
      "Adds a table made by dump_chunk_counts to `counts` (ValueError for anything else).");
}

}  // namespace tokenforge::bindings
