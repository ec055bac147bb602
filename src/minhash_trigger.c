/*
 * minhash_trigger.c
 *	  minhash_flag_duplicates(): a BEFORE INSERT OR UPDATE row trigger that
 *	  sets a flag column of the new row to the key of the most similar
 *	  existing row at or above a threshold, or to NULL.
 *
 *	  CREATE TRIGGER ... BEFORE INSERT OR UPDATE ON docs FOR EACH ROW
 *	  EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8'
 *											   [, 'key_column' [, 'lock']]);
 *
 *	  minhash_sign_and_flag() does the same after filling the signature from
 *	  a document column when the statement did not set it (minhash_trigger_sign_row()):
 *
 *	  EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'duplicate_of',
 *			'0.8' [, 'key_column' [, 'lock' [, '5 words']]]);
 *
 * The lookup is one SPI query through the %> operator, which a
 * gin_minhash_ops index serves (never a gin_minhash_approx_ops one, whose
 * operator family lacks it).  Every name in it comes from the catalogs and
 * is quoted, the threshold is parsed here and written as a float8 constant,
 * and every operator and function is schema-qualified, so neither the
 * trigger's arguments nor the caller's search_path can change what the
 * query does.  The key is stored in the flag column as an assignment stores
 * it: a key that does not fit is an error, never a truncated key naming
 * another row.
 *
 * Each trigger's arguments are read, checked against the table
 * (minhash_trigger_config.c) and turned into a kept plan once, on its first
 * row, and again after the table, the trigger or a schema changes
 * (minhash_trigger_cache.c).  minhash_trigger.h lists the files.
 *
 * The query sees what the statement's snapshot sees: rows of transactions
 * that have not committed are invisible, so two near-duplicates inserted at
 * the same time by different transactions are not flagged against each
 * other (README, "Flagging duplicates on insert").  The 'lock' mode
 * serializes them instead: see minhash_trigger_lock_near_duplicates().
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "minhash.h"
#include "minhash_trigger.h"

/* The trigger manager must call us BEFORE INSERT OR UPDATE, FOR EACH ROW. */
static TriggerData *
check_trigger_call(FunctionCallInfo fcinfo, const char *function_name)
{
	TriggerData *trigdata;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" was not called by trigger manager", function_name)));
	trigdata = (TriggerData *) fcinfo->context;
	if (!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) || !TRIGGER_FIRED_BEFORE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" must be fired BEFORE ROW", function_name),
				 errhint("Create the trigger with BEFORE INSERT OR UPDATE ... FOR EACH ROW.")));
	if (!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) && !TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" must be fired for INSERT or UPDATE", function_name)));
	return trigdata;
}

/*
 * The first BEFORE ROW trigger on the table for this event that fires after
 * this one (triggers fire in order of their names) and whose function is
 * neither function_oid nor also_oid, or NULL: one that may change the row
 * after the lookup has run.
 */
static const char *
later_before_trigger(TriggerData *trigdata, Oid function_oid, Oid also_oid)
{
	TriggerDesc *triggers = trigdata->tg_relation->trigdesc;
	int16		event = TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) ? TRIGGER_TYPE_INSERT : TRIGGER_TYPE_UPDATE;
	bool		after_this = false;

	for (int i = 0; triggers != NULL && i < triggers->numtriggers; i++)
	{
		Trigger    *trigger = &triggers->triggers[i];
		bool		enabled = SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA ?
			trigger->tgenabled == TRIGGER_FIRES_ON_REPLICA || trigger->tgenabled == TRIGGER_FIRES_ALWAYS :
			trigger->tgenabled == TRIGGER_FIRES_ON_ORIGIN || trigger->tgenabled == TRIGGER_FIRES_ALWAYS;

		if (trigger->tgoid == trigdata->tg_trigger->tgoid)
			after_this = true;
		else if (after_this && enabled && trigger->tgfoid != function_oid && trigger->tgfoid != also_oid &&
				 TRIGGER_TYPE_MATCHES(trigger->tgtype, TRIGGER_TYPE_ROW, TRIGGER_TYPE_BEFORE, event))
			return trigger->tgname;
	}
	return NULL;
}

/*
 * A row without a signature is not looked up: the trigger knows only the
 * signature column, not the document's, so it cannot tell a row with no
 * document from one whose signature is not set yet, and it flags neither.
 * It can tell when the signature may be set after it: by a BEFORE trigger
 * that fires later.  Then a null signature is an error, not a row left
 * quietly unflagged.  (A generated signature column is refused when the
 * trigger's arguments are read: it is computed after every BEFORE trigger.)
 */
static void
check_null_signature(TriggerData *trigdata, const FlagTrigger *flag_trigger, Oid function_oid)
{
	const char *later = later_before_trigger(trigdata, function_oid, InvalidOid);
	const char *trigger_name = trigdata->tg_trigger->tgname;

	if (later != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("signature column \"%s\" of relation \"%s\" is null when trigger \"%s\" runs",
						NameStr(column_attr(trigdata->tg_relation, flag_trigger->config.sig_attnum)->attname),
						RelationGetRelationName(trigdata->tg_relation), trigger_name),
				 errdetail("Trigger \"%s\" fires after it, and may set the signature after the lookup.", later),
				 errhint("BEFORE triggers fire in order of their names: rename them so that \"%s\" sorts after every other, and set the signature in the statement or in a trigger that fires earlier.",
						 trigger_name)));
}

/*
 * The signing trigger must fire after every BEFORE ROW trigger but the
 * extension's own: one that fired after it could clear the signature or
 * change the document once the signature is built and the row flagged,
 * leaving a row with a document and no signature, or a signature and a
 * flag of another text, without a word.  A BEFORE trigger cannot see what
 * later ones do, so the order itself is the error (the flagging trigger's
 * own rule, check_null_signature, for a signature a later trigger may set).
 */
static void
check_signs_last(TriggerData *trigdata, const FlagTrigger *flag_trigger, Oid function_oid)
{
	const char *later = later_before_trigger(trigdata, function_oid, flag_trigger->config.flag_function);
	const char *trigger_name = trigdata->tg_trigger->tgname;

	if (later != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" of relation \"%s\" fires after trigger \"%s\", which signs the row",
						later, RelationGetRelationName(trigdata->tg_relation), trigger_name),
				 errdetail("A BEFORE trigger that fires after \"%s\" could clear the signature or change the document once the row is signed and flagged.",
						   trigger_name),
				 errhint("BEFORE triggers fire in order of their names: rename them so that \"%s\" sorts after every other.",
						 trigger_name)));
}

/*
 * The row's flag column set from its signature (see below), for either
 * trigger; the signing one first fills the signature (minhash_trigger_sign_row).
 */
static Datum
flag_row(FunctionCallInfo fcinfo, bool signs)
{
	TriggerData *trigdata = check_trigger_call(fcinfo, signs ? SIGN_FUNCTION_NAME : FLAG_FUNCTION_NAME);
	Relation	rel = trigdata->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	tuple = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ?
		trigdata->tg_newtuple : trigdata->tg_trigtuple;
	Oid			function_oid = fcinfo->flinfo->fn_oid;
	FlagTrigger *flag_trigger = minhash_flag_trigger_for(trigdata, function_oid, signs);
	Datum		sig;
	bool		sig_isnull;
	bool		look_up;
	Datum		flag = (Datum) 0;
	bool		flag_isnull = true;
	int			flag_column = flag_trigger->config.flag_attnum;

	flag_trigger->pins++;
	PG_TRY();
	{
		if (signs)
		{
			check_signs_last(trigdata, flag_trigger, function_oid);
			tuple = minhash_trigger_sign_row(trigdata, flag_trigger, tuple);
		}
		sig = heap_getattr(tuple, flag_trigger->config.sig_attnum, desc, &sig_isnull);
		if (sig_isnull)
			check_null_signature(trigdata, flag_trigger, function_oid);
		/*
		 * An empty signature (a document without words) resembles nothing:
		 * its flag stays null, with no lookup and no lock to take.  The
		 * lookup's %> never names an empty row either.
		 */
		look_up = !sig_isnull && !minhash_signature_is_empty(DatumGetMinHashP(sig));
		if (look_up && flag_trigger->config.lock_near_duplicates)
			minhash_trigger_lock_near_duplicates(rel, sig, flag_trigger->config.threshold);
		if (look_up)
			flag = minhash_trigger_most_similar_key(trigdata, flag_trigger, sig, &flag_isnull);
	}
	PG_FINALLY();
	{
		flag_trigger->pins--;
	}
	PG_END_TRY();

	tuple = heap_modify_tuple_by_cols(tuple, desc, 1, &flag_column, &flag, &flag_isnull);
	return PointerGetDatum(tuple);
}

PG_FUNCTION_INFO_V1(minhash_flag_duplicates);
/*
 * minhash_flag_duplicates(sig_column, flag_column, threshold [, key_column
 * [, 'lock' | 'nolock']]): the new row's flag column becomes the key of the
 * most similar other row whose signature resembles the new one at least at
 * the threshold, or NULL (also when the new signature is empty, or NULL
 * unless a later BEFORE trigger may set it: check_null_signature).
 */
Datum
minhash_flag_duplicates(PG_FUNCTION_ARGS)
{
	return flag_row(fcinfo, false);
}

PG_FUNCTION_INFO_V1(minhash_sign_and_flag);
/*
 * minhash_sign_and_flag(doc_column, sig_column, flag_column, threshold
 * [, key_column [, 'lock' | 'nolock' [, shingles]]]): the signature column
 * filled from the document column when the statement did not set it
 * (minhash_trigger_sign_row), then the flag set as minhash_flag_duplicates sets it.
 */
Datum
minhash_sign_and_flag(PG_FUNCTION_ARGS)
{
	return flag_row(fcinfo, true);
}
