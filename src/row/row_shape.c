/*-------------------------------------------------------------------------
 *
 * row_shape.c
 *	  Comparing the physical shape of two versions of a table's row type
 *	  (see row_shape.h).
 *
 * ALTER TABLE on a source changes the descriptor its capture images are
 * formed with (capture.c) and the one a job's executors were built with
 * (stream_job.c); these decide when an image must be reshaped and when a
 * job must be built again.
 *
 * src/row/row_shape.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hummock_stream/row/row_shape.h"

/* Same storage: what deforming a tuple depends on. */
static bool
same_storage(Form_pg_attribute a, Form_pg_attribute b)
{
	return a->attlen == b->attlen && a->attbyval == b->attbyval &&
		a->attalign == b->attalign;
}

bool
HsRowShapeEqual(TupleDesc a, TupleDesc b)
{
	if (a->natts != b->natts)
		return false;
	for (int i = 0; i < a->natts; i++)
	{
		Form_pg_attribute x = TupleDescAttr(a, i);
		Form_pg_attribute y = TupleDescAttr(b, i);

		if (x->attisdropped != y->attisdropped)
			return false;
		if (x->attisdropped)
			continue;
		if (x->atttypid != y->atttypid || x->atttypmod != y->atttypmod ||
			x->attcollation != y->attcollation || !same_storage(x, y))
			return false;
	}
	return true;
}

bool
HsRowColumnCarries(TupleDesc old, TupleDesc new, int i)
{
	Form_pg_attribute x,
				y;

	if (i >= old->natts || i >= new->natts)
		return false;
	x = TupleDescAttr(old, i);
	y = TupleDescAttr(new, i);
	return !x->attisdropped && !y->attisdropped &&
		x->atttypid == y->atttypid && same_storage(x, y);
}

bool
HsRowImagesReadable(TupleDesc old, TupleDesc new)
{
	for (int i = 0; i < Min(old->natts, new->natts); i++)
	{
		Form_pg_attribute x = TupleDescAttr(old, i);
		Form_pg_attribute y = TupleDescAttr(new, i);

		/* a dropped column keeps its storage in pg_attribute */
		if (!same_storage(x, y))
			return false;
		if (!x->attisdropped && !y->attisdropped && x->atttypid != y->atttypid)
			return false;
	}
	/* a column new drops beyond old's last cannot exist; fewer is a rewrite */
	return new->natts >= old->natts;
}
