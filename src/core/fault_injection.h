/*
 * fault_injection.h
 *	  The test build's control of the core's throw points (make
 *	  FAULT_INJECTION=1; see src/core/boundary.hpp and
 *	  test/stress/fault_injection.sh).  Nothing here exists in the normal build.
 */
#ifndef MINHASH_FAULT_INJECTION_H
#define MINHASH_FAULT_INJECTION_H

#include "minhash_core.h"

#ifdef MH_FAULT_INJECTION

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * Make the nth hit (1 = the next) of the injection point of exported
 * function `point` throw `kind`: "bad_alloc", "runtime_error", "int" (an
 * exception of no class: throw 42) or "interrupt" (the engine's own
 * Interrupted).  Once: it then disarms; sticky: every hit from the nth on.
 * MH_ERR_ARGUMENT for an unknown point or kind, or nth < 1.
 */
MhStatus	mh_fault_arm(const char *point, const char *kind, uint64_t nth, int sticky) MH_NOEXCEPT;

void		mh_fault_disarm(void) MH_NOEXCEPT;

/* How many exceptions the injection points threw since the last arming. */
uint64_t	mh_fault_fired(void) MH_NOEXCEPT;

/*
 * The i-th exported function of minhash_core.h (NULL past the last): either
 * it has an injection point (*no_throw_reason = NULL) or its body cannot
 * throw, for the reason given.
 */
const char *mh_fault_boundary(size_t i, const char **no_throw_reason) MH_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* MH_FAULT_INJECTION */

#endif							/* MINHASH_FAULT_INJECTION_H */
