/*
 * minhash_sketch.c
 *	  Byte sketches: a quarter of a signature, enough to rule a pair out.
 *	  minhash_byte_sketch(sig) keeps the low byte of each value with the
 *	  signature's parameters; resemblance_bound(sketch, sig) is the fraction
 *	  of positions where the sketch's byte equals sig's, at least the
 *	  resemblance of the sketched signature and sig (mh_byte_sketch).  The
 *	  distributed pairs ship sketches, not signatures, to the shard of the
 *	  other row, and whole signatures only for the pairs the bound keeps.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "minhash.h"

/*
 * The sketch's header, byte by byte in a fixed order (little-endian), so
 * that a sketch means the same on any node: version, kind, empty (the
 * sketched set had no shingles), a zero byte, shingle_size (2), seed (4),
 * num_perm (2: at most MH_MAX_NUM_PERM); then num_perm bytes.
 */
#define SKETCH_VERSION 1
#define SKETCH_HEADER 12

StaticAssertDecl(MH_MAX_NUM_PERM <= 0xFFFF, "num_perm fits the sketch header's two bytes");

static void
put_le(uint8 *out, uint32 value, int bytes)
{
	for (int i = 0; i < bytes; i++)
		out[i] = (uint8) (value >> (8 * i));
}

static uint32
get_le(const uint8 *in, int bytes)
{
	uint32		value = 0;

	for (int i = 0; i < bytes; i++)
		value |= (uint32) in[i] << (8 * i);
	return value;
}

PG_FUNCTION_INFO_V1(minhash_byte_sketch);
/* minhash_byte_sketch(sig): the parameters and the low byte of each value */
Datum
minhash_byte_sketch(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	MhSummary	summary;
	bytea	   *sketch;
	uint8	   *out;

	minhash_get_summary(sig, &summary);
	sketch = palloc(VARHDRSZ + SKETCH_HEADER + summary.params.num_perm);
	SET_VARSIZE(sketch, VARHDRSZ + SKETCH_HEADER + summary.params.num_perm);
	out = (uint8 *) VARDATA(sketch);
	out[0] = SKETCH_VERSION;
	out[1] = summary.params.kind;
	out[2] = mh_is_empty(&summary) ? 1 : 0;
	out[3] = 0;
	put_le(out + 4, summary.params.shingle_size, 2);
	put_le(out + 6, (uint32) summary.params.seed, 4);
	put_le(out + 10, summary.params.num_perm, 2);
	mh_byte_sketch(sig->values, summary.params.num_perm, out + SKETCH_HEADER);
	PG_RETURN_BYTEA_P(sketch);
}

PG_FUNCTION_INFO_V1(minhash_resemblance_bound);
/*
 * resemblance_bound(sketch, sig): agreeing bytes / num_perm, at least
 * resemblance(sketched, sig); 0 when either set is empty, as resemblance.
 */
Datum
minhash_resemblance_bound(PG_FUNCTION_ARGS)
{
	bytea	   *sketch = PG_GETARG_BYTEA_PP(0);
	MinHash    *sig = PG_GETARG_MINHASH_P(1);
	const uint8 *in = (const uint8 *) VARDATA_ANY(sketch);
	Size		length = VARSIZE_ANY_EXHDR(sketch);
	MhSummary	summary;
	MhParams	sketched;

	minhash_get_summary(sig, &summary);
	if (length < SKETCH_HEADER || in[0] != SKETCH_VERSION ||
		length != SKETCH_HEADER + get_le(in + 10, 2))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid byte sketch"),
				 errdetail("The value has %zu bytes; a sketch is a %d-byte header and one byte per hash value.",
						   length, SKETCH_HEADER),
				 errhint("Pass a value that minhash_byte_sketch() returned.")));
	memset(&sketched, 0, sizeof(sketched));
	sketched.kind = in[1];
	sketched.shingle_size = (uint16) get_le(in + 4, 2);
	sketched.seed = (int32) get_le(in + 6, 4);
	sketched.num_perm = get_le(in + 10, 2);
	if (mh_params_match(&sketched, &summary.params) != MH_OK)
		minhash_report_mismatch(&sketched, &summary.params);
	if (in[2] != 0 || mh_is_empty(&summary))
		PG_RETURN_FLOAT8(0.0);
	PG_RETURN_FLOAT8((double) mh_sketch_agreeing_bound(in + SKETCH_HEADER, sig->values, summary.params.num_perm) /
					 summary.params.num_perm);
}
