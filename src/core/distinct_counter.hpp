// distinct_counter.hpp
//   Counts a document's distinct shingle hashes in caller-owned memory.
//   Exact while they fit in the table; past that, adaptive sampling
//   (Flajolet 1990): keep only hashes whose top `level` bits are zero and
//   estimate count * 2^level, with a relative error near 1/sqrt(capacity/2).
#pragma once

#include <cstddef>
#include <cstdint>

namespace minhash
{

struct DistinctCounter
{
	uint64_t *table;       // max_capacity slots; the first capacity in use, 0 = empty
	uint64_t *scratch;     // max_capacity / 2 + 1 slots, used while rehashing
	uint64_t capacity;     // slots in use, a power of two; doubles as the table fills
	uint64_t max_capacity; // slots the caller allocated
	uint64_t count;        // hashes in the table
	uint32_t level;        // sampling level; 0 = exact
};

// The table starts at half the capacity the document's upper bound
// asks for (documents have far fewer words than the bound allows), at least
// this, and doubles.  Where it starts changes nothing but speed: the count is
// exact until the table reaches max_capacity, whatever the way there.
constexpr uint64_t kInitialCounterCapacity = 512;

constexpr uint64_t kMinCounterCapacity = 16;
constexpr uint64_t kMaxCounterCapacity = uint64_t(1) << 20; // 8 MB table + 4 MB scratch

// Table capacity for at most max_elements distinct hashes.
uint64_t distinct_counter_capacity(uint64_t max_elements);

// Slots (uint64_t) of caller memory a counter of this maximum capacity needs.
inline uint64_t distinct_counter_slots(uint64_t capacity)
{
	return capacity + capacity / 2 + 1;
}

// sized_for: distinct_counter_capacity() of this document's upper bound, at
// most max_capacity (0: max_capacity), where the table's size starts from.
void distinct_counter_init(DistinctCounter *counter, uint64_t *slots, uint64_t max_capacity,
                           uint64_t sized_for = 0);

// Out of line: the table is half full; grow it or raise the sampling level.
void distinct_counter_make_room(DistinctCounter *counter);

// Put a hash in the table unless it is there (linear probing); false if it
// was there.
inline bool distinct_counter_insert(DistinctCounter *counter, uint64_t hash)
{
	const uint64_t mask = counter->capacity - 1;
	uint64_t slot = hash & mask;
	while (counter->table[slot] != 0)
	{
		if (counter->table[slot] == hash) return false;
		slot = (slot + 1) & mask;
	}
	counter->table[slot] = hash;
	counter->count++;
	return true;
}

inline bool distinct_counter_samples(const DistinctCounter *counter, uint64_t hash)
{
	return counter->level == 0 || (hash >> (64 - counter->level)) == 0;
}

// Inline: it runs once per shingle.  Returns false when the hash is known to
// have been added before (it is in the table; 0 and 1 share a slot); true
// when it is new or was not sampled.
inline bool distinct_counter_add(DistinctCounter *counter, uint64_t hash)
{
	if (hash == 0) hash = 1; // 0 marks an empty slot
	if (!distinct_counter_samples(counter, hash)) return true;
	if (!distinct_counter_insert(counter, hash)) return false;
	if (counter->count > counter->capacity / 2) distinct_counter_make_room(counter);
	return true;
}

uint64_t distinct_counter_estimate(const DistinctCounter *counter);

inline bool distinct_counter_is_exact(const DistinctCounter *counter)
{
	return counter->level == 0;
}

} // namespace minhash
