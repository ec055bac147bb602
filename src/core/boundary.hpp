// boundary.hpp
//   Where the engine's exceptions stop.  Every exported function whose body
//   can throw runs it in guarded(), which turns any exception into a status,
//   and starts it with MH_INJECTION_POINT, through which the fault-injection
//   build (make FAULT_INJECTION=1, test/stress/fault_injection.sh) throws there to
//   show that the boundary holds.  In the normal build the point is nothing.
#pragma once

#include <new>

#include "minhash_core.h"

namespace minhash
{

// Thrown by Poller (explain_internal.hpp) when the glue's poll asks to stop;
// caught at the entry point, which returns MH_ERR_INTERRUPTED.
struct Interrupted
{
};

// Runs an entry point's body, turning what it throws into a status: the
// one place where the engine's exceptions stop.
template <typename Body>
MhStatus guarded(Body &&body) noexcept
{
	try
	{
		return body();
	}
	catch (const Interrupted &)
	{
		return MH_ERR_INTERRUPTED;
	}
	catch (const std::bad_alloc &)
	{
		return MH_ERR_OUT_OF_MEMORY;
	}
	catch (...)
	{
		return MH_ERR_INTERNAL;
	}
}

#ifdef MH_FAULT_INJECTION
// Throws the armed exception when this is the armed point's N-th hit
// (fault_injection.cpp).
void fault_point(const char *function);
#define MH_INJECTION_POINT(function) ::minhash::fault_point(function)
#else
#define MH_INJECTION_POINT(function) ((void) 0)
#endif

} // namespace minhash
