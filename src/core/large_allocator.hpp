// large_allocator.hpp
//   An allocator for the engine's large arrays: they go in their own
//   mapping, in 2 MB pages where the kernel offers them (transparent huge
//   pages on request, MADV_HUGEPAGE).  Why: a cancelled grouping must give
//   its memory back before the backend answers, and the kernel unmaps
//   2 MB pages far sooner than as many bytes of 4 kB ones.
//   Small arrays use the heap as usual.  The glue keeps the signatures it
//   reads in such memory too (mh_large_alloc).
//   Beyond minhash.group_memory the glue opens a temporary file for the
//   call (mh_spill_begin): every array of kSpillArrayBytes or more is then
//   a region of that file instead, mapped shared (spill_file.cpp), so that
//   the same engine runs with the backend's private memory bounded.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace minhash
{

// At least this many bytes get a mapping of their own.
constexpr std::size_t kLargeArrayBytes = std::size_t(4) << 20;

// In the file-backed mode, at least this many bytes are a region of the file.
constexpr std::size_t kSpillArrayBytes = std::size_t(64) << 10;

// The file-backed mode (spill_file.cpp).  spill_free: false when p is no
// region of a file (then it is the caller's to free as usual).
bool spill_active() noexcept;
bool spill_has_regions() noexcept;
void *spill_allocate_or_null(std::size_t bytes) noexcept;
bool spill_free(void *p) noexcept;

// nullptr when the memory is not there.
inline void *allocate_large_or_null(std::size_t bytes) noexcept
{
	if (bytes >= kSpillArrayBytes && spill_active()) return spill_allocate_or_null(bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (bytes >= kLargeArrayBytes)
	{
		void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) return nullptr;
		// Advice only: without huge pages the memory is the same, slower to free.
		(void) madvise(p, bytes, MADV_HUGEPAGE);
		return p;
	}
#endif
	return ::operator new(bytes, std::nothrow);
}

inline void free_large(void *p, std::size_t bytes) noexcept
{
	if (bytes >= kSpillArrayBytes && spill_has_regions() && spill_free(p)) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (bytes >= kLargeArrayBytes)
	{
		(void) munmap(p, bytes);
		return;
	}
#endif
	::operator delete(p, std::nothrow);
}

template <typename T>
struct LargeAllocator
{
	using value_type = T;
	LargeAllocator() = default;
	template <typename U>
	LargeAllocator(const LargeAllocator<U> &) noexcept
	{
	}
	T *allocate(std::size_t n)
	{
		if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
		void *p = allocate_large_or_null(n * sizeof(T));
		if (p == nullptr) throw std::bad_alloc();
		return static_cast<T *>(p);
	}
	void deallocate(T *p, std::size_t n) noexcept { free_large(p, n * sizeof(T)); }
	template <typename U>
	bool operator==(const LargeAllocator<U> &) const noexcept
	{
		return true;
	}
	template <typename U>
	bool operator!=(const LargeAllocator<U> &) const noexcept
	{
		return false;
	}
};

template <typename T>
using LargeVector = std::vector<T, LargeAllocator<T>>;

} // namespace minhash
