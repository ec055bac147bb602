// spill_file.cpp
//   The file-backed mode of the large allocator (large_allocator.hpp): while
//   the caller has a temporary file open for it (mh_spill_begin), every
//   array of kSpillArrayBytes or more is a region of that file mapped
//   shared, not anonymous memory.  The page cache holds the file while RAM
//   allows and the kernel writes it back under pressure, so the backend's
//   private memory stays small whatever the arrays take, and the engine
//   runs as it does in memory.
//
//   A region's blocks are allocated (posix_fallocate) before it is mapped:
//   a full disk is then a failed allocation up front, never a SIGBUS when a
//   page is first written.  A freed region is unmapped and its blocks given
//   back (a punched hole), and its range reused by a later region.  The
//   file never grows past the caller's limit.  Regions are found by
//   address, so one freed after its file's mode ended is only unmapped.
#include <cerrno>
#include <cstdint>
#include <cstring>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "large_allocator.hpp"
#include "minhash_core.h"

namespace
{

#if defined(__linux__)

struct Region
{
	void *address;
	uint64_t offset;
	size_t bytes;
	uint32_t file; // the mode's token when it was mapped
};

struct FreeRange
{
	uint64_t offset;
	uint64_t bytes;
};

// Bounded tables, so that the allocator allocates nothing itself: a call
// holds a few hundred arrays at most (two a band, and the glue's).
constexpr size_t kMaxRegions = 8192;
constexpr size_t kMaxFreeRanges = 1024;

struct SpillFile
{
	bool active = false;
	int fd = -1;
	uint32_t token = 0;
	uint64_t max_bytes = 0;
	uint64_t end = 0;       // the file's used length
	uint64_t peak_end = 0;  // its largest
	int failure = 0;        // of the last failed allocation
	size_t region_count = 0;
	size_t free_count = 0;
	Region regions[kMaxRegions];
	FreeRange free_ranges[kMaxFreeRanges]; // by offset, never adjacent
};

SpillFile spill;

size_t page_rounded(size_t bytes)
{
	const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
	return (bytes + page - 1) / page * page;
}

// A range of `bytes` from the free list (first fit), or from the end of the
// file within its limit; false, with spill.failure set, when there is none.
bool take_range(uint64_t bytes, uint64_t *offset)
{
	for (size_t i = 0; i < spill.free_count; i++)
	{
		FreeRange &range = spill.free_ranges[i];
		if (range.bytes < bytes) continue;
		*offset = range.offset;
		range.offset += bytes;
		range.bytes -= bytes;
		if (range.bytes == 0)
		{
			std::memmove(&spill.free_ranges[i], &spill.free_ranges[i + 1],
			             (spill.free_count - i - 1) * sizeof(FreeRange));
			spill.free_count--;
		}
		return true;
	}
	if (bytes > spill.max_bytes || spill.end > spill.max_bytes - bytes)
	{
		spill.failure = MH_SPILL_FILE_LIMIT;
		return false;
	}
	*offset = spill.end;
	spill.end += bytes;
	if (spill.end > spill.peak_end) spill.peak_end = spill.end;
	return true;
}

// Gives a range back: merged with its neighbours, and the file's end
// pulled back when it is the last.  With the free list full the range is
// lost to this file (it still counts against the limit), never reused twice.
void give_back_range(uint64_t offset, uint64_t bytes)
{
	size_t at = 0;
	while (at < spill.free_count && spill.free_ranges[at].offset < offset) at++;
	if (at > 0 && spill.free_ranges[at - 1].offset + spill.free_ranges[at - 1].bytes == offset)
	{
		at--;
		spill.free_ranges[at].bytes += bytes;
	}
	else
	{
		if (spill.free_count == kMaxFreeRanges) return;
		std::memmove(&spill.free_ranges[at + 1], &spill.free_ranges[at],
		             (spill.free_count - at) * sizeof(FreeRange));
		spill.free_ranges[at] = FreeRange{offset, bytes};
		spill.free_count++;
	}
	if (at + 1 < spill.free_count &&
	    spill.free_ranges[at].offset + spill.free_ranges[at].bytes == spill.free_ranges[at + 1].offset)
	{
		spill.free_ranges[at].bytes += spill.free_ranges[at + 1].bytes;
		std::memmove(&spill.free_ranges[at + 1], &spill.free_ranges[at + 2],
		             (spill.free_count - at - 2) * sizeof(FreeRange));
		spill.free_count--;
	}
	const FreeRange &last = spill.free_ranges[spill.free_count - 1];
	if (last.offset + last.bytes == spill.end)
	{
		spill.end = last.offset;
		spill.free_count--;
	}
}

#endif

} // namespace

namespace minhash
{

bool spill_active() noexcept
{
#if defined(__linux__)
	return spill.active;
#else
	return false;
#endif
}

void *spill_allocate_or_null(size_t bytes) noexcept
{
#if defined(__linux__)
	if (spill.region_count == kMaxRegions)
	{
		spill.failure = ENOMEM;
		return nullptr;
	}
	const size_t size = page_rounded(bytes);
	uint64_t offset;
	if (!take_range(size, &offset)) return nullptr;
	// The blocks first: a full disk fails here, not at a page's first write.
	int err = posix_fallocate(spill.fd, static_cast<off_t>(offset), static_cast<off_t>(size));
	void *p = MAP_FAILED;
	if (err == 0)
	{
		p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, spill.fd,
		         static_cast<off_t>(offset));
		if (p == MAP_FAILED) err = errno;
	}
	if (p == MAP_FAILED)
	{
		give_back_range(offset, size);
		spill.failure = err;
		return nullptr;
	}
	spill.regions[spill.region_count++] = Region{p, offset, size, spill.token};
	return p;
#else
	(void) bytes;
	return nullptr;
#endif
}

bool spill_free(void *p) noexcept
{
#if defined(__linux__)
	for (size_t i = spill.region_count; i-- > 0;)
	{
		if (spill.regions[i].address != p) continue;
		const Region region = spill.regions[i];
		spill.regions[i] = spill.regions[--spill.region_count];
		(void) munmap(region.address, region.bytes);
		if (spill.active && region.file == spill.token)
		{
			// Its pages need never be written back: their blocks go.
			(void) fallocate(spill.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			                 static_cast<off_t>(region.offset), static_cast<off_t>(region.bytes));
			give_back_range(region.offset, region.bytes);
		}
		return true;
	}
#else
	(void) p;
#endif
	return false;
}

bool spill_has_regions() noexcept
{
#if defined(__linux__)
	return spill.region_count > 0;
#else
	return false;
#endif
}

} // namespace minhash

extern "C" {

uint32_t mh_spill_begin(int fd, uint64_t max_file_bytes) noexcept
{
#if defined(__linux__)
	spill.active = true;
	spill.fd = fd;
	spill.token = spill.token + 1 == 0 ? 1 : spill.token + 1;
	spill.max_bytes = max_file_bytes;
	spill.end = spill.peak_end = 0;
	spill.failure = 0;
	spill.free_count = 0;
	return spill.token;
#else
	(void) fd;
	(void) max_file_bytes;
	return 0;
#endif
}

void mh_spill_end(uint32_t token) noexcept
{
#if defined(__linux__)
	if (!spill.active || spill.token != token) return;
	spill.active = false;
	spill.fd = -1;
	spill.free_count = 0;
#else
	(void) token;
#endif
}

int mh_spill_failure(uint64_t *file_bytes) noexcept
{
#if defined(__linux__)
	*file_bytes = spill.peak_end;
	return spill.failure;
#else
	*file_bytes = 0;
	return 0;
#endif
}

} // extern "C"
