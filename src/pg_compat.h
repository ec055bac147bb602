/*
 * pg_compat.h
 *	  Every difference between the PostgreSQL majors we build against
 *	  (13 to 18), in one place.
 *
 * The glue is written for the newest server: it uses PostgreSQL 18's
 * spellings, and this header maps each of them onto what an older server
 * offers.  Include it right after postgres.h (src/minhash.h does); no other
 * file tests PG_VERSION_NUM.
 */
#ifndef PG_COMPAT_H
#define PG_COMPAT_H

/*
 * 13 is the oldest server we build against: gin_minhash_ops takes operator
 * class options (bands, rows, ...), which 13 introduced.
 */
#if PG_VERSION_NUM < 130000
#error "minhash requires PostgreSQL 13 or later"
#endif

/*
 * The varlena macros (VARSIZE, VARDATA, ...) live in varatt.h since 16, and
 * 18's postgres.h no longer includes it.  Before 16 postgres.h defines them.
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 18 spells "does not return" pg_noreturn, in front of the declaration
 * (C11 _Noreturn), and drops pg_attribute_noreturn().  GCC's attribute,
 * which older servers use, may stand in the same place.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 18 added deferrable_ok: a deferrable primary key is returned only when
 * the caller asks for one.  Older servers never return a deferrable primary
 * key, which is what deferrable_ok = false gives on 18; callers pass false.
 */
#if PG_VERSION_NUM < 180000
#define RelationGetPrimaryKeyIndex(relation, deferrable_ok) \
	RelationGetPrimaryKeyIndex(relation)
#endif

/*
 * 14 added the accessor for the external (stored) size of a toast pointer;
 * 13 keeps it in a plain field.
 */
#if PG_VERSION_NUM < 140000
#define VARATT_EXTERNAL_GET_EXTSIZE(toast_pointer) ((toast_pointer).va_extsize)
#endif

/*
 * 15 reserves a GUC prefix (unknown minhash.* settings become errors);
 * before, the nearest is a warning for each unknown placeholder.
 */
#if PG_VERSION_NUM < 150000
#define MarkGUCPrefixReserved(className) EmitWarningsOnPlaceholders(className)
#endif

/*
 * 17 added transaction_timeout, whose expiry sets TransactionTimeoutPending.
 * Before 17 there is no such timeout, so it is never pending.
 */
#if PG_VERSION_NUM < 170000
#define TransactionTimeoutPending false
#define TransactionTimeout 0
#endif

#endif							/* PG_COMPAT_H */
