/*-------------------------------------------------------------------------
 *
 * block_builder.c
 *	  Prefix-compressed sorted blocks with restart points.
 *
 * The format is documented in block_builder.h.  Adding an entry costs a
 * shared-prefix scan against the previous key (8 bytes at a time), three
 * varints and two memcpys into a reused buffer: no allocation once the
 * buffers have grown to a block's size.
 *
 * src/storage/block_builder.c
 *
 *-------------------------------------------------------------------------
 */
#include "hummock_stream/storage/block_builder.h"

void
HsBlockBuilderInit(HsBlockBuilder *b, HsEnv *env, uint32_t restart_interval)
{
	b->restart_interval = restart_interval ? restart_interval :
		HS_BLOCK_DEFAULT_RESTART_INTERVAL;
	HsBufInit(&b->buf, env);
	HsBufInit(&b->restarts, env);
	HsBufInit(&b->last_key, env);
	b->align_payloads = false;
	HsBlockBuilderReset(b);
}

void
HsBlockBuilderDestroy(HsBlockBuilder *b)
{
	HsBufFree(&b->buf);
	HsBufFree(&b->restarts);
	HsBufFree(&b->last_key);
}

void
HsBlockBuilderReset(HsBlockBuilder *b)
{
	HsBufReset(&b->buf);
	HsBufReset(&b->restarts);
	HsBufReset(&b->last_key);
	HsBufPutLE32(&b->restarts, 0);	/* the first entry is a restart */
	b->counter = 0;
	b->num_entries = 0;
	b->finished = false;
}

/* Length of the common prefix of a and b. */
static inline size_t
shared_prefix(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t		n = alen < blen ? alen : blen;
	size_t		i = 0;

	while (i + 8 <= n)
	{
		uint64_t	x = HsGetLE64(a + i) ^ HsGetLE64(b + i);

		if (x != 0)
			return i + (size_t) (__builtin_ctzll(x) >> 3);
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Encode v as a varint32 of exactly len bytes (redundant groups of 0). */
static uint8_t *
encode_varint32_len(uint8_t *p, uint32_t v, int len)
{
	for (int i = 0; i < len - 1; i++)
	{
		*p++ = (uint8_t) ((v & 127) | 128);
		v >>= 7;
	}
	*p++ = (uint8_t) v;
	return p;
}

/*
 * For an aligned payload: choose *shared (at most the common prefix) and
 * the lengths of the non_shared and value_len varints so that the payload
 * of an entry starting at offset start lands on an aligned offset.  Fewer
 * shared bytes first (the header keeps its one-byte fast form); else pad
 * the varints.  Leaves the canonical choice if neither works (a value
 * length that needs all five varint bytes).
 */
static void
choose_alignment(size_t start, size_t key_len, size_t value_len,
				 size_t *shared, int *ns_len, int *vl_len)
{
	const size_t a = HS_BLOCK_PAYLOAD_ALIGN;
	int			vl = HsVarintLength(value_len);
	size_t		pos;
	size_t		pad;

	for (size_t d = 0; d < a && d <= *shared; d++)
	{
		size_t		s = *shared - d;
		size_t		ns = key_len - s;

		pos = start + HsVarintLength(s) + HsVarintLength(ns) + vl + ns + 1;
		if (pos % a == 0)
		{
			*shared = s;
			*ns_len = HsVarintLength(ns);
			*vl_len = vl;
			return;
		}
	}
	*ns_len = HsVarintLength(key_len - *shared);
	*vl_len = vl;
	pos = start + HsVarintLength(*shared) + *ns_len + vl +
		(key_len - *shared) + 1;
	pad = (a - pos % a) % a;
	if (pad > (size_t) (HS_MAX_VARINT32_LEN - vl) +
		(size_t) (HS_MAX_VARINT32_LEN - *ns_len))
		return;
	while (pad > 0 && *vl_len < HS_MAX_VARINT32_LEN)
		(*vl_len)++, pad--;
	*ns_len += (int) pad;
}

void
HsBlockBuilderAdd(HsBlockBuilder *b, HsSlice key, HsSlice value)
{
	size_t		shared = 0;
	size_t		non_shared;
	uint8_t    *p;
	int			ns_len = 0;
	int			vl_len = 0;

	if (b->counter < b->restart_interval)
		shared = shared_prefix(b->last_key.data, b->last_key.len,
							   key.data, key.len);
	else
	{
		HsBufPutLE32(&b->restarts, (uint32_t) b->buf.len);
		b->counter = 0;
	}
	if (b->align_payloads)
		choose_alignment(b->buf.len, key.len, value.len, &shared, &ns_len,
						 &vl_len);
	non_shared = key.len - shared;

	HsBufReserve(&b->buf, 3 * HS_MAX_VARINT32_LEN + non_shared + value.len);
	p = b->buf.data + b->buf.len;
	if (b->align_payloads)
	{
		p = HsEncodeVarint32(p, (uint32_t) shared);
		p = encode_varint32_len(p, (uint32_t) non_shared, ns_len);
		p = encode_varint32_len(p, (uint32_t) value.len, vl_len);
	}
	else if ((shared | non_shared | value.len) < 128)
	{
		p[0] = (uint8_t) shared;
		p[1] = (uint8_t) non_shared;
		p[2] = (uint8_t) value.len;
		p += 3;
	}
	else
	{
		p = HsEncodeVarint32(p, (uint32_t) shared);
		p = HsEncodeVarint32(p, (uint32_t) non_shared);
		p = HsEncodeVarint32(p, (uint32_t) value.len);
	}
	memcpy(p, key.data + shared, non_shared);
	p += non_shared;
	if (value.len)
		memcpy(p, value.data, value.len);
	p += value.len;
	b->buf.len = (size_t) (p - b->buf.data);

	/* last_key = key, reusing the shared prefix already there */
	b->last_key.len = shared;
	HsBufAppend(&b->last_key, key.data + shared, non_shared);

	b->counter++;
	b->num_entries++;
}

HsSlice
HsBlockBuilderFinish(HsBlockBuilder *b)
{
	if (!b->finished)
	{
		HsBufAppend(&b->buf, b->restarts.data, b->restarts.len);
		HsBufPutLE32(&b->buf, (uint32_t) (b->restarts.len / 4));
		b->finished = true;
	}
	return HsBufSlice(&b->buf);
}
