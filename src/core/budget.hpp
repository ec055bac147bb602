// budget.hpp
//   The memory one grouping or pairing call may hold, granted by the caller
//   (the glue counts it against minhash.group_memory).  Every array those
//   calls allocate goes through a BudgetAllocator, which charges the bytes to
//   the Budget before it allocates them: the engine never holds more than it
//   was granted, and it can say how much it held at most.  An allocation
//   that would pass the grant throws OverBudget, which the entry point turns
//   into MH_ERR_TOO_LARGE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "large_allocator.hpp"

namespace minhash
{

// Thrown when a charge would pass the grant: `wanted` is what the engine
// would then have held.
struct OverBudget
{
	uint64_t wanted;
};

class Budget
{
public:
	explicit Budget(uint64_t limit) : limit_(limit) {}
	Budget(const Budget &) = delete;
	Budget &operator=(const Budget &) = delete;

	void charge(uint64_t bytes)
	{
		if (bytes > limit_ - held_) throw OverBudget{held_ + bytes};
		held_ += bytes;
		if (held_ > peak_) peak_ = held_;
	}
	void refund(uint64_t bytes) { held_ -= bytes; }
	uint64_t held() const { return held_; }
	uint64_t room() const { return limit_ - held_; }
	uint64_t peak() const { return peak_; }

private:
	uint64_t limit_;
	uint64_t held_ = 0;
	uint64_t peak_ = 0;
};

// An allocator that charges a Budget, for std::vector: a vector that grows
// holds its old and its new array at once, and both are charged.
template <typename T>
struct BudgetAllocator
{
	using value_type = T;
	explicit BudgetAllocator(Budget &budget) noexcept : budget(&budget) {}
	template <typename U>
	BudgetAllocator(const BudgetAllocator<U> &other) noexcept : budget(other.budget)
	{
	}
	T *allocate(std::size_t n)
	{
		if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
		budget->charge(n * sizeof(T));
		void *p = allocate_large_or_null(n * sizeof(T));
		if (p == nullptr)
		{
			budget->refund(n * sizeof(T));
			throw std::bad_alloc();
		}
		return static_cast<T *>(p);
	}
	void deallocate(T *p, std::size_t n) noexcept
	{
		free_large(p, n * sizeof(T));
		budget->refund(n * sizeof(T));
	}
	template <typename U>
	bool operator==(const BudgetAllocator<U> &other) const noexcept
	{
		return budget == other.budget;
	}
	template <typename U>
	bool operator!=(const BudgetAllocator<U> &other) const noexcept
	{
		return budget != other.budget;
	}

	Budget *budget;
};

template <typename T>
using BudgetVector = std::vector<T, BudgetAllocator<T>>;

} // namespace minhash
