/*
 * minhash.h
 *	  The stored minhash value and helpers shared by the glue files.
 */
#ifndef MINHASH_H
#define MINHASH_H

#include "postgres.h"

#include "pg_compat.h"

#include "fmgr.h"
#include "access/tupdesc.h"
#include "lib/stringinfo.h"
#include "storage/itemptr.h"

#include "minhash_core.h"

/*
 * On-disk layout (offsets after the varlena header: MH_STORED_* in
 * minhash_core.h, asserted in minhash_type.c).  Fields are native-endian;
 * btree order and hashing read them as little-endian (minhash_ops.c).  The
 * reserved fields are zero, written so by every producer
 * (minhash_from_summary) and checked when a value is read
 * (minhash_check_stored), so that equal signatures are equal bytes.
 */
typedef struct MinHash
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint8		version;		/* MH_FORMAT_VERSION */
	uint8		kind;			/* MhKind */
	uint8		flags;			/* MH_FLAG_* */
	uint8		reserved;		/* zero */
	uint16		shingle_size;	/* k or q; 0 for sets */
	uint16		reserved2;		/* zero */
	int32		seed;
	uint32		num_perm;
	uint32		reserved3;		/* zero: 1.0's alignment padding, always zeroed */
	uint64		distinct_shingles;
	uint32		values[FLEXIBLE_ARRAY_MEMBER];
} MinHash;

#define MINHASH_SIZE(num_perm) (offsetof(MinHash, values) + sizeof(uint32) * (num_perm))

#define DatumGetMinHashP(x)		minhash_check_stored((MinHash *) PG_DETOAST_DATUM(x))
#define PG_GETARG_MINHASH_P(n)	DatumGetMinHashP(PG_GETARG_DATUM(n))
#define PG_RETURN_MINHASH_P(x)	PG_RETURN_POINTER(x)

/* minhash_guc.c */
extern double minhash_similarity_threshold;
extern int	minhash_group_memory;

/* minhash_type.c */
extern MinHash *minhash_check_stored(MinHash *sig);
extern MinHash *minhash_from_summary(const MhSummary *summary, const uint32 *values);
extern void minhash_get_summary(const MinHash *sig, MhSummary *summary);
extern void minhash_describe_params(StringInfo buf, const MhParams *params);
extern void minhash_report_params_error(MhStatus status, int32 num_perm, int32 shingle_size);
extern void minhash_report_mismatch(const MhParams *a, const MhParams *b);
pg_noreturn extern void minhash_report_core_failure(MhStatus status, const char *action);
extern double minhash_check_threshold(double threshold);
extern void minhash_check_typmod(const MinHash *sig, int32 typmod);

/* minhash_internal_schema.c: the schema of the helpers the glue's SQL calls */
#define MINHASH_INTERNAL_SCHEMA "minhash_internal"
extern const char *minhash_helper_schema(const char *extension_schema, const char *name, int nargs,
										 const Oid *types);

/* minhash_glue_shared.c */
struct Tuplestorestate;
extern int	minhash_cancel_pending(void *arg);
pg_noreturn extern void minhash_end_interrupted(void);
extern struct Tuplestorestate *minhash_materialize_result(FunctionCallInfo fcinfo, TupleDesc *tupdesc);
extern const char *minhash_text_utf8(text *doc, size_t *length);
extern void minhash_sort_int32(int32 *values, size_t count);
extern uint64 minhash_tid_number(ItemPointer tid);
extern bool minhash_same_varlena(Datum a, bool a_isnull, Datum b, bool b_isnull);

/* how many characters of a user's input a message quotes */
#define MINHASH_ECHO_CHARS 40
extern const char *minhash_echo_prefix(const char *input);

/* minhash_build.c */
extern MhParams minhash_text_params(MhKind kind, int32 num_perm, int32 shingle_size, int32 seed);
extern MinHash *minhash_sign_text(FmgrInfo *flinfo, text *doc, const MhParams *params);

/* minhash_fetch.c */
extern text *minhash_fetch_text(Datum datum);

/* minhash_compare.c */
extern double minhash_signature_resemblance(const MinHash *a, const MinHash *b);
extern bool minhash_is_near_duplicate(const MinHash *a, const MinHash *b, double threshold);
extern bool minhash_signature_is_empty(const MinHash *sig);

/* minhash_io.c */
extern Datum minhash_in(PG_FUNCTION_ARGS);
extern Datum minhash_out(PG_FUNCTION_ARGS);
extern Datum minhash_recv(PG_FUNCTION_ARGS);
extern Datum minhash_send(PG_FUNCTION_ARGS);
extern bool minhash_looks_like_literal(const char *text);

/* minhash_query.c */
extern MinHash *minhash_query_signature(Datum datum, double *threshold);

/* minhash_lsh.c */
extern void minhash_check_layout(int32 bands, int32 rows, uint32 num_perm);
extern double minhash_check_layout_threshold(double threshold);
extern double minhash_check_recall(double recall);
extern void minhash_recall_layout(double threshold, double recall, uint32 num_perm,
								  uint32 *bands, uint32 *rows);

/* minhash_gin.c */
extern bool minhash_gin_narrows(const bytea *options, uint32 num_perm, double threshold);

/* GIN strategies of the minhash operator families */
#define MINHASH_SIMILAR_STRATEGY	1	/* minhash % minhash */
#define MINHASH_QUERY_STRATEGY		2	/* minhash %> minhash_query */
#define MINHASH_APPROX_STRATEGY		3	/* minhash %~ minhash_query */

#endif							/* MINHASH_H */
