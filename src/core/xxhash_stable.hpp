// xxhash_stable.hpp
//   The one way the engine includes xxHash.  Every stored value depends on
//   XXH3's output: shingle hashes behind signatures, band keys in indexes.
//   XXH3's output is frozen only from xxHash 0.8.0 on (0.7.x marked it
//   experimental, and its results changed between releases), so building
//   against an older xxHash is refused here rather than producing signatures
//   and index keys that differ from every other build.  The golden values in
//   test/core/core_test.cpp and sql/layout.sql catch any later change.
#pragma once

#define XXH_INLINE_ALL
#include <xxhash.h>

#if !defined(XXH_VERSION_NUMBER) || XXH_VERSION_NUMBER < 800
#error "minhash needs xxHash 0.8.0 or later: XXH3's output (stored in signatures and index keys) is stable only from 0.8.0; install a newer libxxhash-dev"
#endif
