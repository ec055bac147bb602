// distinct_counter.cpp: open addressing with linear probing, then sampling.
#include "distinct_counter.hpp"

#include <cstring>

namespace minhash {

namespace {

bool sampled_out(const DistinctCounter *counter, uint64_t hash) {
    return counter->level != 0 && (hash >> (64 - counter->level)) != 0;
}

void insert(DistinctCounter *counter, uint64_t hash) {
    const uint64_t mask = counter->capacity - 1;
    uint64_t slot = hash & mask;
    while (counter->table[slot] != 0) {
        if (counter->table[slot] == hash) return;
        slot = (slot + 1) & mask;
    }
    counter->table[slot] = hash;
    counter->count++;
}

// Re-insert the hashes the current sampling level keeps into a table of
// new_capacity slots.
void rehash(DistinctCounter *counter, uint64_t new_capacity) {
    uint64_t kept = 0;
    for (uint64_t slot = 0; slot < counter->capacity; slot++) {
        const uint64_t hash = counter->table[slot];
        if (hash != 0 && !sampled_out(counter, hash)) counter->scratch[kept++] = hash;
    }
    counter->capacity = new_capacity;
    std::memset(counter->table, 0, new_capacity * sizeof(uint64_t));
    counter->count = 0;
    for (uint64_t k = 0; k < kept; k++) insert(counter, counter->scratch[k]);
}

// The table is half full: double it while there is room, else raise the
// sampling level until it is at most a quarter full.
void make_room(DistinctCounter *counter) {
    if (counter->capacity < counter->max_capacity) {
        rehash(counter, counter->capacity * 2);
        return;
    }
    while (counter->count > counter->capacity / 4 && counter->level < 63) {
        counter->level++;
        rehash(counter, counter->capacity);
    }
}

}  // namespace

uint64_t distinct_counter_capacity(uint64_t max_elements) {
    uint64_t capacity = kMinCounterCapacity;
    while (capacity < kMaxCounterCapacity && capacity / 2 < max_elements) capacity *= 2;
    return capacity;
}

void distinct_counter_init(DistinctCounter *counter, uint64_t *slots, uint64_t max_capacity) {
    counter->table = slots;
    counter->scratch = slots + max_capacity;
    counter->max_capacity = max_capacity;
    counter->capacity = max_capacity < kInitialCounterCapacity ? max_capacity : kInitialCounterCapacity;
    counter->count = 0;
    counter->level = 0;
    std::memset(slots, 0, counter->capacity * sizeof(uint64_t));
}

void distinct_counter_add(DistinctCounter *counter, uint64_t hash) {
    if (hash == 0) hash = 1;  // 0 marks an empty slot
    if (sampled_out(counter, hash)) return;
    insert(counter, hash);
    if (counter->count > counter->capacity / 2) make_room(counter);
}

uint64_t distinct_counter_estimate(const DistinctCounter *counter) {
    return counter->count << counter->level;
}

}  // namespace minhash
