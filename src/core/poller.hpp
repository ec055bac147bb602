// poller.hpp
//   How the engine's long computations (explaining a match, grouping) stop
//   when PostgreSQL asks: they count their work and call the glue's poll
//   now and then; when it answers yes, Interrupted unwinds to the entry
//   point (boundary.hpp), freeing what the computation holds on the way.
#pragma once

#include <cstdint>

#include "boundary.hpp"
#include "minhash_core.h"

namespace minhash
{

// Calls the poll once per `every` units of work.
class Poller
{
public:
	Poller(MhInterruptPoll poll, void *arg) : poll_(poll), arg_(arg) {}
	void tick(uint64_t work = 1)
	{
		budget_ += work;
		if (budget_ >= kEvery) check();
	}
	// Poll now, after a long step that counted no work (freeing memory).
	void check()
	{
		budget_ = 0;
		if (poll_ != nullptr && poll_(arg_) != 0) throw Interrupted();
	}

private:
	// A step may miss the cache, so a few ms of work at most between polls.
	static constexpr uint64_t kEvery = 1 << 16;
	MhInterruptPoll poll_;
	void *arg_;
	uint64_t budget_ = 0;
};

} // namespace minhash
