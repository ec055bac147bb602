// distinct_counter.hpp
//   Counts a document's distinct shingle hashes in caller-owned memory.
//   Exact while they fit in the table; past that, adaptive sampling
//   (Flajolet 1990): keep only hashes whose top `level` bits are zero and
//   estimate count * 2^level, with a relative error near 1/sqrt(capacity/2).
#pragma once

#include <cstddef>
#include <cstdint>

namespace minhash {

struct DistinctCounter {
    uint64_t *table;        // max_capacity slots; the first capacity in use, 0 = empty
    uint64_t *scratch;      // max_capacity / 2 + 1 slots, used while rehashing
    uint64_t capacity;      // slots in use, a power of two; doubles as the table fills
    uint64_t max_capacity;  // slots the caller allocated
    uint64_t count;         // hashes in the table
    uint32_t level;         // sampling level; 0 = exact
};

// Small documents touch only a small table: it starts here and doubles.
constexpr uint64_t kInitialCounterCapacity = 1024;

constexpr uint64_t kMinCounterCapacity = 16;
constexpr uint64_t kMaxCounterCapacity = uint64_t(1) << 20;  // 8 MB table + 4 MB scratch

// Table capacity for at most max_elements distinct hashes.
uint64_t distinct_counter_capacity(uint64_t max_elements);

// Slots (uint64_t) of caller memory a counter of this maximum capacity needs.
inline uint64_t distinct_counter_slots(uint64_t capacity) { return capacity + capacity / 2 + 1; }

void distinct_counter_init(DistinctCounter *counter, uint64_t *slots, uint64_t max_capacity);

void distinct_counter_add(DistinctCounter *counter, uint64_t hash);

uint64_t distinct_counter_estimate(const DistinctCounter *counter);

inline bool distinct_counter_is_exact(const DistinctCounter *counter) {
    return counter->level == 0;
}

}  // namespace minhash
