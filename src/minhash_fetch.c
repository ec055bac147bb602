/*
 * minhash_fetch.c
 *	  Fetching a long document argument so that a cancel gets through.
 *
 * PostgreSQL reads an out-of-line value in one loop with no interrupt check
 * (heap_fetch_toast_slice): for a text of hundreds of megabytes
 * statement_timeout or a cancel waits until it ends, the longer on a busy
 * machine.  A value stored out of line uncompressed (STORAGE EXTERNAL, or
 * text that did not compress) can be fetched a slice at a time, with a
 * check in between, at the cost of one slice of extra memory.  A compressed
 * one is detoasted as usual: its decompression cannot be split.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "miscadmin.h"

#include "minhash.h"

/* Bytes fetched between two interrupt checks. */
#define FETCH_SLICE_BYTES (4 * 1024 * 1024)

/* A text argument, detoasted, interruptibly where it can be. */
text *
minhash_fetch_text(Datum datum)
{
	struct varlena *value = (struct varlena *) DatumGetPointer(datum);
	struct varatt_external pointer;
	int32		size;
	text	   *result;

	if (!VARATT_IS_EXTERNAL_ONDISK(value))
		return (text *) pg_detoast_datum_packed(value);
	VARATT_EXTERNAL_GET_POINTER(pointer, value);
	if (VARATT_EXTERNAL_IS_COMPRESSED(pointer))
		return (text *) pg_detoast_datum_packed(value);

	size = VARATT_EXTERNAL_GET_EXTSIZE(pointer);
	result = (text *) palloc(VARHDRSZ + size);
	SET_VARSIZE(result, VARHDRSZ + size);
	for (int32 offset = 0; offset < size; offset += FETCH_SLICE_BYTES)
	{
		int32		length = Min(FETCH_SLICE_BYTES, size - offset);
		struct varlena *slice;

		CHECK_FOR_INTERRUPTS();
		slice = detoast_attr_slice(value, offset, length);
		if (VARSIZE_ANY_EXHDR(slice) != length)
			elog(ERROR, "toast slice at %d has %zu bytes, expected %d",
				 offset, (size_t) VARSIZE_ANY_EXHDR(slice), length);
		memcpy(VARDATA(result) + offset, VARDATA_ANY(slice), length);
		pfree(slice);
	}
	return result;
}
