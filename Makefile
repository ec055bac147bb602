# minhash: near-duplicate text detection for PostgreSQL (PGXS build).

EXTENSION = minhash
MODULE_big = minhash
DATA = sql/minhash--1.0.sql sql/minhash--1.0--1.1.sql sql/minhash--1.1--1.2.sql sql/minhash--1.2--1.3.sql
PGFILEDESC = "minhash - MinHash signatures and resemblance for near-duplicate text"

# The engine: C++17, no PostgreSQL header (src/core/minhash_core.h is the boundary).
CORE_OBJS = \
	src/core/builder.o \
	src/core/union.o \
	src/core/compare.o \
	src/core/distinct_counter.o \
	src/core/hash_family.o \
	src/core/lsh.o \
	src/core/index_layout.o \
	src/core/recall_layout.o \
	src/core/params.o \
	src/core/signature_binary.o \
	src/core/signature_text.o \
	src/core/stored_image.o \
	src/core/tokenizer.o \
	src/core/tokens.o \
	src/core/chunk_match.o \
	src/core/exact_resemblance.o \
	src/core/sort.o \
	src/core/explain_words.o \
	src/core/interval.o \
	src/core/grouping.o \
	src/core/pairs.o \
	src/core/band_probe.o \
	src/core/spill_file.o \
	src/core/fault_injection.o

# The glue: one C file per SQL concern.
GLUE_OBJS = \
	src/minhash_build.o \
	src/minhash_aggregate.o \
	src/minhash_trigger.o \
	src/minhash_trigger_config.o \
	src/minhash_trigger_cache.o \
	src/minhash_trigger_lookup.o \
	src/minhash_trigger_sign.o \
	src/minhash_compare.o \
	src/minhash_gin.o \
	src/minhash_group.o \
	src/minhash_near_dupe_source.o \
	src/minhash_near_dupe_groups.o \
	src/minhash_near_dupe_append.o \
	src/minhash_near_dupe_append_groups.o \
	src/minhash_near_dupe_append_new_rows.o \
	src/minhash_near_dupe_append_slots.o \
	src/minhash_near_dupe_append_stream.o \
	src/minhash_near_dupe_pairs.o \
	src/minhash_near_dupe_statement.o \
	src/minhash_near_dupe_threshold.o \
	src/minhash_glue_shared.o \
	src/minhash_guc.o \
	src/minhash_lsh.o \
	src/minhash_sketch.o \
	src/minhash_distributed.o \
	src/minhash_io.o \
	src/minhash_ops.o \
	src/minhash_query.o \
	src/minhash_selectivity.o \
	src/minhash_type.o \
	src/minhash_explain.o \
	src/minhash_review_html.o \
	src/minhash_interval.o \
	src/minhash_fetch.o \
	src/minhash_fault.o \
	src/minhash_guidance.o \
	src/minhash_key_operators.o \
	src/minhash_internal_schema.o

OBJS = $(GLUE_OBJS) $(CORE_OBJS)

REGRESS = setup io build tokenizer compare guc_prefix compat mismatch signatures opclass lsh sketch layout explain report reports review review_links review_pages report_keys aggregate trigger trigger_sign group group_sql group_spill group_append inheritance pairs empty_documents prepared approx security security_planted distributed_cleanup row_security bad_input input

# Isolation tests (pg_isolation_regress, run by make installcheck after
# REGRESS): specs in test/isolation/specs, outputs in test/isolation/expected.
ISOLATION = trigger_concurrent_insert append_concurrent
ISOLATION_OPTS = --inputdir=test/isolation

PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/core
PG_CXXFLAGS = -std=c++17
# Test build only (test/stress/fault_injection.sh builds it in a copy of the tree):
# compiles a throw point into every core boundary (src/core/boundary.hpp).
ifeq ($(FAULT_INJECTION),1)
PG_CPPFLAGS += -DMH_FAULT_INJECTION
endif
SHLIB_LINK = -lstdc++
EXTRA_CLEAN = test/core/core_test test/core/*.o test/fuzz/build

# Our functions are called through fmgr, so JIT has nothing to inline, and
# C++ bitcode would need a clang matching the server's LLVM: skip bitcode.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies on Debian's build: spell them out.
$(CORE_OBJS): $(wildcard src/core/*.h src/core/*.hpp src/core/*.inc)
$(GLUE_OBJS): src/minhash.h src/pg_compat.h src/core/minhash_core.h
src/minhash_near_dupe_source.o src/minhash_near_dupe_groups.o src/minhash_near_dupe_pairs.o src/minhash_near_dupe_statement.o src/minhash_near_dupe_append.o src/minhash_near_dupe_threshold.o: src/minhash_near_dupe.h
src/minhash_explain.o src/minhash_review_html.o: src/minhash_explain.h
src/minhash_trigger.o src/minhash_trigger_config.o src/minhash_trigger_cache.o src/minhash_trigger_lookup.o src/minhash_trigger_sign.o: src/minhash_trigger.h
src/minhash_near_dupe_append.o src/minhash_near_dupe_append_groups.o src/minhash_near_dupe_append_new_rows.o src/minhash_near_dupe_append_slots.o src/minhash_near_dupe_append_stream.o: src/minhash_near_dupe.h src/minhash_near_dupe_append.h

# The min-update and agreement loops are the hot paths: let GCC vectorize
# them (-O2 does not).
src/core/hash_family.o src/core/compare.o src/core/pairs.o src/core/band_probe.o: CXXFLAGS += -O3

# Core unit tests: the engine alone, under AddressSanitizer and UBSan.
CORE_SOURCES = $(CORE_OBJS:.o=.cpp)
SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test/core/core_test: test/core/core_test.cpp $(CORE_SOURCES) src/core/*.h src/core/*.hpp src/core/*.inc
	$(CXX) -std=c++17 -O1 -g -Wall -Wextra $(SANITIZE) -Isrc/core -o $@ test/core/core_test.cpp $(CORE_SOURCES)

.PHONY: core-test
core-test: test/core/core_test
	test/core/core_test

# A PGXN distribution (META.json, checked by test/doc/meta_test.sh): the
# committed tree as $(DIST_DIR)/minhash-VERSION.zip, VERSION taken from the
# committed META.json.  Refused unless VERSION is the committed control
# file's default_version as X.Y.0: the package would carry one version's
# label and install another's scripts.
DIST_DIR = dist
DIST_VERSION = $(shell git show HEAD:META.json | sed -n 's/^\t"version": "\([0-9.]*\)",$$/\1/p')
DIST_DEFAULT_VERSION = $(shell git show HEAD:minhash.control | sed -n "s/^default_version = '\([0-9.]*\)'$$/\1/p")
.PHONY: dist
dist:
	@test -n "$(DIST_VERSION)" || { echo "no version in the committed META.json"; exit 1; }
	@test "$(DIST_VERSION)" = "$(DIST_DEFAULT_VERSION).0" || { \
		echo "META.json's version $(DIST_VERSION) is not minhash.control's default_version '$(DIST_DEFAULT_VERSION)' (as $(DIST_DEFAULT_VERSION).0): make them agree and commit before making a distribution"; \
		exit 1; }
	mkdir -p $(DIST_DIR)
	git archive --format zip --prefix=minhash-$(DIST_VERSION)/ --output $(DIST_DIR)/minhash-$(DIST_VERSION).zip HEAD

# libFuzzer harnesses (test/fuzz, see test/fuzz/README): the engine alone,
# built by clang 14 with coverage, AddressSanitizer and UBSan.
# Run them with `bash test/fuzz/run.sh [SECONDS] [HARNESS...]`.
FUZZ_CXX ?= clang++-14
FUZZ_HARNESSES = text_parse binary_recv builder band_keys chunk_match
FUZZ_DIR = test/fuzz/build
FUZZ_FLAGS = -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all -Isrc/core
FUZZ_CORE_OBJS = $(patsubst src/core/%.cpp,$(FUZZ_DIR)/core/%.o,$(CORE_SOURCES))
$(FUZZ_DIR)/core/%.o: src/core/%.cpp src/core/*.h src/core/*.hpp src/core/*.inc test/fuzz/coverage_ignore.txt
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link \
		-fsanitize-coverage-ignorelist=test/fuzz/coverage_ignore.txt -c -o $@ $<
$(FUZZ_DIR)/fuzz_%: test/fuzz/fuzz_%.cpp test/fuzz/fuzz_common.hpp $(FUZZ_CORE_OBJS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CORE_OBJS)

.PHONY: fuzz
fuzz: $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_HARNESSES))
