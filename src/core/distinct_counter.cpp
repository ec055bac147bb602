// distinct_counter.cpp: open addressing with linear probing, then sampling.
#include "distinct_counter.hpp"

#include <cstring>

namespace minhash
{

namespace
{

// Re-insert the hashes the current sampling level keeps into a table of
// new_capacity slots.
void rehash(DistinctCounter *counter, uint64_t new_capacity)
{
	uint64_t kept = 0;
	for (uint64_t slot = 0; slot < counter->capacity; slot++)
	{
		const uint64_t hash = counter->table[slot];
		if (hash != 0 && distinct_counter_samples(counter, hash)) counter->scratch[kept++] = hash;
	}
	counter->capacity = new_capacity;
	std::memset(counter->table, 0, new_capacity * sizeof(uint64_t));
	counter->count = 0;
	for (uint64_t k = 0; k < kept; k++) distinct_counter_insert(counter, counter->scratch[k]);
}

} // namespace

uint64_t distinct_counter_capacity(uint64_t max_elements)
{
	uint64_t capacity = kMinCounterCapacity;
	while (capacity < kMaxCounterCapacity && capacity / 2 < max_elements) capacity *= 2;
	return capacity;
}

void distinct_counter_init(DistinctCounter *counter, uint64_t *slots, uint64_t max_capacity,
                           uint64_t sized_for)
{
	if (sized_for == 0 || sized_for > max_capacity) sized_for = max_capacity;
	counter->table = slots;
	counter->scratch = slots + max_capacity;
	counter->max_capacity = max_capacity;
	const uint64_t initial =
	    sized_for / 2 > kInitialCounterCapacity ? sized_for / 2 : kInitialCounterCapacity;
	counter->capacity = max_capacity < initial ? max_capacity : initial;
	counter->count = 0;
	counter->level = 0;
	std::memset(slots, 0, counter->capacity * sizeof(uint64_t));
}

// The table is half full: double it while there is room, else raise the
// sampling level until it is at most a quarter full.
void distinct_counter_make_room(DistinctCounter *counter)
{
	if (counter->capacity < counter->max_capacity)
	{
		rehash(counter, counter->capacity * 2);
		return;
	}
	while (counter->count > counter->capacity / 4 && counter->level < 63)
	{
		counter->level++;
		rehash(counter, counter->capacity);
	}
}

uint64_t distinct_counter_estimate(const DistinctCounter *counter)
{
	return counter->count << counter->level;
}

} // namespace minhash
