/*
 * minhash_trigger_sign.c
 *	  minhash_sign_and_flag's first step: the row's signature built from its
 *	  document when the statement did not set it.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/trigger.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "minhash.h"
#include "minhash_trigger.h"

/*
 * The signing trigger's first step: the new row with its signature filled
 * from its document when the statement did not set it, so that a row with a
 * document always has a signature.
 *   - A signature the statement set is kept as it is (not rebuilt to check
 *     it: that would cost what the statement saved by building it, and a
 *     signature copied from elsewhere is the statement's to choose).
 *   - A NULL signature beside a document is built.
 *   - On UPDATE, a document that changed under a signature that did not
 *     (NEW.sig IS NOT DISTINCT FROM OLD.sig) is signed again: the old
 *     signature is of the old text.  A document set to NULL so gets a NULL
 *     signature, and the row a NULL flag.
 * The signature is what minhash(doc, num_perm) builds (or the builder the
 * shingles argument names).  A small builder is kept with the trigger's
 * entry, not in the trigger's FmgrInfo: COPY looks that up while in its
 * per-row memory context, which is reset after every row.  No user code
 * runs while a signature is built, so a nested call never finds it in use.
 */
HeapTuple
minhash_trigger_sign_row(TriggerData *trigdata, FlagTrigger *flag_trigger, HeapTuple tuple)
{
	const FlagConfig *config = &flag_trigger->config;
	TupleDesc	desc = RelationGetDescr(trigdata->tg_relation);
	int			sig_column = config->sig_attnum;
	bool		doc_isnull;
	Datum		doc = heap_getattr(tuple, config->doc_attnum, desc, &doc_isnull);
	bool		sig_isnull;
	Datum		sig = heap_getattr(tuple, config->sig_attnum, desc, &sig_isnull);
	bool		sign = sig_isnull && !doc_isnull;

	if (!sign && TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		HeapTuple	old = trigdata->tg_trigtuple;
		bool		old_doc_isnull;
		Datum		old_doc = heap_getattr(old, config->doc_attnum, desc, &old_doc_isnull);
		bool		old_sig_isnull;
		Datum		old_sig = heap_getattr(old, config->sig_attnum, desc, &old_sig_isnull);

		sign = minhash_same_varlena(sig, sig_isnull, old_sig, old_sig_isnull) &&
			!minhash_same_varlena(doc, doc_isnull, old_doc, old_doc_isnull);
	}
	if (!sign)
		return tuple;

	sig_isnull = doc_isnull;
	if (!doc_isnull)
		sig = PointerGetDatum(minhash_sign_text(&flag_trigger->builder_keeper, minhash_fetch_text(doc),
												&config->sign_params));
	if (OidIsValid(config->sig_domain))
		domain_check(sig, sig_isnull, config->sig_domain, NULL, CurrentMemoryContext);
	return heap_modify_tuple_by_cols(tuple, desc, 1, &sig_column, &sig, &sig_isnull);
}
