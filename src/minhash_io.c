/*
 * minhash_io.c
 *	  Text and binary input/output of the minhash type.  The grammar and the
 *	  byte layout live in the core (signature_text.cpp, signature_binary.cpp);
 *	  here each status becomes a message.
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "minhash.h"

/* errdetail for a problem the text parser found at `offset` */
static int
text_error_detail(MhStatus status, size_t offset)
{
	int			at = (int) offset + 1;

	switch (status)
	{
		case MH_PARSE_BAD_PREFIX:
			return errdetail("A minhash literal starts with \"v\" and a format version, as in \"v1:\".");
		case MH_PARSE_BAD_VERSION:
			return errdetail("Expected a format version number at character %d.", at);
		case MH_PARSE_UNKNOWN_VERSION:
			return errdetail("Format version at character %d is not supported; this build reads version %d.",
							 at, MH_FORMAT_VERSION);
		case MH_PARSE_UNKNOWN_KIND:
			return errdetail("Unrecognized signature kind at character %d; expected \"words\", \"chars\" or \"set\".", at);
		case MH_PARSE_BAD_FIELD:
			return errdetail("Unexpected text at character %d; the fields are k=, seed=, size= and n=, in that order, separated by \":\".", at);
		case MH_PARSE_BAD_NUMBER:
			return errdetail("Invalid number at character %d; numbers are decimal, without leading zeros, and within range.", at);
		case MH_ERR_SHINGLE_SIZE_RANGE:
			return errdetail("Shingle size at character %d must be between %d and %d.",
							 at, MH_MIN_SHINGLE_SIZE, MH_MAX_SHINGLE_SIZE);
		case MH_ERR_NUM_PERM_RANGE:
			return errdetail("Number of hash values at character %d must be between %d and %d.",
							 at, MH_MIN_NUM_PERM, MH_MAX_NUM_PERM);
		case MH_PARSE_ESTIMATED_EMPTY:
			return errdetail("An estimated size (\"size~\") cannot be zero.");
		case MH_PARSE_COUNT_MISMATCH:
			return errdetail("The hash values after character %d must be exactly n groups of 8 hexadecimal digits.", at - 1);
		case MH_PARSE_BAD_HEX:
			return errdetail("Invalid hash value at character %d; each value is 8 lowercase hexadecimal digits.", at);
		case MH_PARSE_EMPTY_NOT_MAX:
			return errdetail("A signature of size 0 must hold ffffffff in every position, but character %d starts another value.", at);
		default:
			return errdetail("Unexpected parser status %d.", (int) status);
	}
}

/*
 * Whether text begins as a minhash literal does, "v", a number and ":"; a
 * document does not (one starting so is taken for a damaged literal).
 */
bool
minhash_looks_like_literal(const char *text)
{
	const char *at = text;

	if (*at++ != 'v' || *at < '0' || *at > '9')
		return false;
	while (*at >= '0' && *at <= '9')
		at++;
	return *at == ':';
}

/*
 * errhint for input that is no minhash literal at all: most often a document
 * that reached minhash_in because PostgreSQL reads minhash('...') with an
 * untyped literal, or minhash(x) of a string type with no minhash() of its
 * own, as a cast to the type minhash.
 */
static int
document_hint(void)
{
	return errhint("To build a signature from a document, give the text a type, as in minhash('...'::text), or name the argument, as in minhash(doc => '...').");
}

PG_FUNCTION_INFO_V1(minhash_in);
Datum
minhash_in(PG_FUNCTION_ARGS)
{
	char	   *literal = PG_GETARG_CSTRING(0);
	int32		typmod = PG_GETARG_INT32(2);
	MhSummary	summary;
	MinHash    *sig = NULL;
	size_t		offset = 0;
	MhStatus	status;

	status = mh_parse_text(literal, &summary, NULL, 0, &offset);
	if (status == MH_OK)
	{
		sig = minhash_from_summary(&summary, NULL);
		status = mh_parse_text(literal, &summary, sig->values, sig->num_perm, &offset);
	}
	/* what the parser threw, not a problem of the literal */
	if (status == MH_ERR_OUT_OF_MEMORY || status == MH_ERR_INTERNAL)
		minhash_report_core_failure(status, "parse minhash literal");
	if (status != MH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"", "minhash",
						minhash_echo_prefix(literal)),
				 text_error_detail(status, offset),
				 minhash_looks_like_literal(literal) ? 0 : document_hint()));
	minhash_check_typmod(sig, typmod);
	PG_RETURN_MINHASH_P(sig);
}

PG_FUNCTION_INFO_V1(minhash_out);
Datum
minhash_out(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	MhSummary	summary;
	size_t		length;
	char	   *out;

	minhash_get_summary(sig, &summary);
	length = mh_text_length(&summary) + 1;
	out = palloc(length);
	if (mh_format_text(&summary, sig->values, out, length) != MH_OK)
		elog(ERROR, "could not format minhash value");
	PG_RETURN_CSTRING(out);
}

/* errdetail for a problem in a binary value */
static int
binary_error_detail(MhStatus status)
{
	switch (status)
	{
		case MH_PARSE_UNKNOWN_VERSION:
			return errdetail("Unsupported format version; this build reads version %d.", MH_FORMAT_VERSION);
		case MH_PARSE_TRUNCATED:
			return errdetail("The value is shorter than its header says.");
		case MH_PARSE_TRAILING:
			return errdetail("The value has bytes after its last hash value.");
		case MH_PARSE_RESERVED_NONZERO:
			return errdetail("A reserved byte is not zero.");
		case MH_PARSE_UNKNOWN_FLAGS:
			return errdetail("Unrecognized flag bits are set.");
		case MH_ERR_KIND:
			return errdetail("Unrecognized signature kind.");
		case MH_ERR_SHINGLE_SIZE_RANGE:
			return errdetail("The shingle size is out of range for the signature kind.");
		case MH_ERR_NUM_PERM_RANGE:
			return errdetail("The number of hash values must be between %d and %d.",
							 MH_MIN_NUM_PERM, MH_MAX_NUM_PERM);
		case MH_PARSE_ESTIMATED_EMPTY:
			return errdetail("An estimated size cannot be zero.");
		case MH_PARSE_EMPTY_NOT_MAX:
			return errdetail("A signature of size 0 must hold ffffffff in every position.");
		default:
			return errdetail("Unexpected parser status %d.", (int) status);
	}
}

PG_FUNCTION_INFO_V1(minhash_recv);
Datum
minhash_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int32		typmod = PG_GETARG_INT32(2);
	const unsigned char *data = (const unsigned char *) buf->data + buf->cursor;
	size_t		length = (size_t) (buf->len - buf->cursor);
	MhSummary	summary;
	MinHash    *sig = NULL;
	MhStatus	status;

	status = mh_read_binary(data, length, &summary, NULL, 0);
	if (status == MH_OK)
	{
		sig = minhash_from_summary(&summary, NULL);
		status = mh_read_binary(data, length, &summary, sig->values, sig->num_perm);
	}
	if (status != MH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary value for type %s", "minhash"),
				 binary_error_detail(status)));
	buf->cursor = buf->len;
	minhash_check_typmod(sig, typmod);
	PG_RETURN_MINHASH_P(sig);
}

PG_FUNCTION_INFO_V1(minhash_send);
Datum
minhash_send(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	MhSummary	summary;
	size_t		length;
	unsigned char *bytes;
	bytea	   *result;

	minhash_get_summary(sig, &summary);
	length = mh_binary_length(&summary);
	result = (bytea *) palloc(VARHDRSZ + length);
	SET_VARSIZE(result, VARHDRSZ + length);
	bytes = (unsigned char *) VARDATA(result);
	if (mh_write_binary(&summary, sig->values, bytes, length) != MH_OK)
		elog(ERROR, "could not serialize minhash value");
	PG_RETURN_BYTEA_P(result);
}
