// sort.hpp
//   The engine's sort of 64-bit hashes: interruptible, for the exact
//   shingle sets (exact_resemblance.cpp, shingle_hashes() through
//   mh_sort_distinct).
#pragma once

#include <cstdint>

#include "poller.hpp"

namespace minhash
{

// Sort values[0 .. count) ascending, as unsigned or (as_signed) as two's
// complement integers, and move the distinct values to the front; returns
// how many there are.  Polls at least every 65,536 values moved.
uint64_t sort_distinct(uint64_t *values, uint64_t count, bool as_signed, Poller &poller);

} // namespace minhash
