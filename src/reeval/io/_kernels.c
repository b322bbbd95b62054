/* Compiled kernels of reeval: readers of clean TREC run and qrels files, hash tables
 * over the document ids of each topic, and a writer of synthetic run lines.
 *
 * parse_run reads a run file whose every line is six fields separated by spaces or
 * tabs, in one pass, and says so when the file is anything else (comments, blank
 * lines, other widths, non-ASCII bytes, a score that is not a plain decimal number):
 * reeval.io.trecio then reads it with its general, line-accounting path. On x86-64 (SSE2)
 * it classifies the 64 bytes from a line's start at once and takes the fields from bit
 * masks; a longer line, and the file's last 64 bytes, are read byte by byte, with the
 * same outcomes (tests compare both). parse_qrels reads qrels files the same way, with
 * the same line readers compiled for four fields and an integer grade of at most 18
 * digits. Neither takes a file holding '#' (the general path counts such lines, which
 * trec_eval miscounts) or a backslash (the general path writes it as \\).
 *
 * One pass over a run's rows in trec_eval order drops every row that repeats an
 * earlier row's (topic, docno) and finds the qrels row of each kept one. The numpy
 * path of reeval/io/ingest.py computes the same results (tests compare the two); this
 * one is several times faster: it hashes each string once, and every table it probes
 * holds one topic only, so it stays in the processor's cache. A topic's rows are hashed
 * before they are probed, so that the table slot of a row a few ahead is prefetched.
 *
 * run_lines writes the text of a synthetic run file (reeval.synth.tracks), the bytes
 * Arrow's CSV writer gave for the same columns, several times faster: scores rounded to
 * a few decimals come as integers k (score = k / 10^decimals) and are written as such,
 * every other score as the text Arrow gave it (tests compare the two writers).
 *
 * Strings are Arrow string arrays passed as (offsets, data): string i is
 * data[offsets[i] : offsets[i + 1]], offsets int64. Topics are int64 codes
 * 0..n_topics-1. The hash of a string is reeval.io.ingest.string_hash64 with seed 0 (same
 * constants, little-endian words), masked by `mask` (all ones normally; tests pass a
 * narrow mask to force collisions). Every hash match is confirmed on the bytes, so
 * collisions cost time, never correctness.
 *
 * A table is a run of uint64 slots, a power of two of them per topic: EMPTY, or
 * (hash >> 32) << 32 | row. Probing is linear from hash & (slots of the topic - 1).
 * Rows must number less than 2^32 - 1.
 *
 * Only the Python C API and the buffer protocol are used (no numpy headers); the GIL
 * is released while the loops run.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

#if !defined(__GNUC__)
#define __builtin_prefetch(p) ((void)0)
#endif

#define EMPTY UINT64_MAX
#define PREFETCH 8  /* rows ahead whose table slot is prefetched */
#define M1 0x9E3779B97F4A7C15ULL
#define M2 0xBF58476D1CE4E5B9ULL
#define M3 0x94D049BB133111EBULL

static inline uint64_t mix64(uint64_t h)
{
    h ^= h >> 30;
    h *= M2;
    h ^= h >> 27;
    h *= M3;
    return h ^ (h >> 31);
}

/* string_hash64: h = len * M1 + seed; h = (h ^ w) * M2 per 8-byte word (last one
   zero-padded); mix64(h). `limit` is the end of the readable memory: a last partial
   word that is 8 bytes from it is loaded whole and masked (on little-endian machines),
   rather than copied byte by byte, which would stall the load that follows. */
static ALWAYS_INLINE uint64_t string_hash(const unsigned char *p, int64_t n, const unsigned char *limit)
{
    uint64_t h = (uint64_t)n * M1;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * M2;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (limit - p >= 8) {
            memcpy(&w, p, 8);
            w &= ~0ULL >> (64 - 8 * n);
        } else
#endif
            memcpy(&w, p, (size_t)n);
        h = (h ^ w) * M2;
    }
    return mix64(h);
}

/* p[:len] == q[:len]; inline, as the strings compared (ids) are short. */
static inline int bytes_equal(const unsigned char *p, const unsigned char *q, int64_t len)
{
    for (int64_t j = 0; j < len; j++)
        if (p[j] != q[j])
            return 0;
    return 1;
}

typedef struct {
    const int64_t *offsets;
    Py_ssize_t n;            /* number of strings (offsets has n + 1 entries) */
    const unsigned char *data;
    Py_ssize_t data_len;
} Strings;

/* Bounds of string i, or 0 when the offsets point outside the data. */
static inline int string_at(const Strings *s, int64_t i, const unsigned char **p, int64_t *len)
{
    int64_t a = s->offsets[i], b = s->offsets[i + 1];
    if (a < 0 || b < a || b > s->data_len)
        return 0;
    *p = s->data + a;
    *len = b - a;
    return 1;
}

static ALWAYS_INLINE int same_string(const Strings *s, int64_t i, const unsigned char *p, int64_t len)
{
    const unsigned char *q;
    int64_t qlen;
    return string_at(s, i, &q, &qlen) && qlen == len && bytes_equal(p, q, len);
}

/* Row of the table region (slots, cap) holding the bytes p[:len] with hash h, or -1;
   the empty slot where the probe ended is stored in *end. String r of the table is
   string row_of[r] of s (string r without row_of). */
static ALWAYS_INLINE int64_t probe(const uint64_t *slots, uint64_t cap, const Strings *s, const int64_t *row_of,
                     uint64_t h, const unsigned char *p, int64_t len, int64_t *end)
{
    uint64_t tag = h >> 32, mask = cap - 1;
    for (uint64_t at = h & mask;; at = (at + 1) & mask) {
        uint64_t e = slots[at];
        if (e == EMPTY) {
            *end = (int64_t)at;
            return -1;
        }
        if ((e >> 32) == tag) {
            int64_t r = (int64_t)(e & 0xFFFFFFFFULL);
            if (same_string(s, row_of ? row_of[r] : r, p, len))
                return r;
        }
    }
}

/* Release the n buffers an argument parser filled. */
static void release(Py_buffer *buffers[], int n)
{
    for (int i = 0; i < n; i++)
        PyBuffer_Release(buffers[i]);
}

/* Parse a buffer argument of a known element size into (pointer, count). */
static int view(Py_buffer *b, Py_ssize_t itemsize, const char *what, Py_ssize_t *count)
{
    if (b->len % itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes is not a whole number of %zd-byte items",
                     what, b->len, itemsize);
        return 0;
    }
    *count = b->len / itemsize;
    return 1;
}

static int strings_from(Py_buffer *offsets, Py_buffer *data, const char *what, Strings *s)
{
    Py_ssize_t n_off;
    if (!view(offsets, 8, what, &n_off))
        return 0;
    if (n_off < 1) {
        PyErr_Format(PyExc_ValueError, "%s: offsets need at least one entry", what);
        return 0;
    }
    s->offsets = (const int64_t *)offsets->buf;
    s->n = n_off - 1;
    s->data = (const unsigned char *)data->buf;
    s->data_len = data->len;
    return 1;
}

/* Check the per-topic regions: base has n_topics + 1 non-decreasing entries ending at
   n_slots, each region a power of two. */
static int regions_ok(const int64_t *base, Py_ssize_t n_base, Py_ssize_t n_slots)
{
    if (n_base < 1 || base[0] != 0 || base[n_base - 1] != n_slots)
        return 0;
    for (Py_ssize_t t = 0; t + 1 < n_base; t++) {
        int64_t cap = base[t + 1] - base[t];
        if (cap <= 0 || (cap & (cap - 1)))
            return 0;
    }
    return 1;
}

/* ---- reading clean run files ---- */

enum { ORD, SEP, NL, CR, BAD };  /* byte classes: ordinary, separator, newline, CR, bail out */
static unsigned char byte_class[256];

static void init_byte_class(void)
{
    for (int c = 0; c < 256; c++)
        byte_class[c] = (c > 0x20 && c < 0x7F) ? ORD : BAD;
    byte_class[' '] = byte_class['\t'] = SEP;
    byte_class['\n'] = NL;
    byte_class['\r'] = CR;
    /* '#' and '\\' make a file unclean: the general reader counts lines holding '#' (which
       trec_eval miscounts) and writes backslashes in escaped text form */
    byte_class['#'] = byte_class['\\'] = BAD;
}

static const double POW10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The double nearest to the decimal p[:n] of the form [+-]?(d+[.d*]|.d+)([eE][+-]?d+)?,
   in *out; 0 when p[:n] has another form or is not finite. Exact: with at most 19
   significant digits, a mantissa below 2^53 and a power of ten within 1e22, the result
   is one correctly rounded operation on exact doubles (Clinger's fast path); any
   other number goes to strtod, correctly rounded as well (and what trec_eval uses). */
static int parse_score(const unsigned char *p, int64_t n, double *out)
{
    int64_t i = 0;
    int neg = 0, digits = 0, significant = 0, frac = 0, exp = 0;
    uint64_t mant = 0;
    if (i < n && (p[i] == '+' || p[i] == '-'))
        neg = p[i++] == '-';
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++)
        if (significant || p[i] != '0') {
            if (significant < 19)
                mant = mant * 10 + (uint64_t)(p[i] - '0');
            significant++;
        }
    if (i < n && p[i] == '.')
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++, frac++)
            if (significant || p[i] != '0') {
                if (significant < 19)
                    mant = mant * 10 + (uint64_t)(p[i] - '0');
                significant++;
            }
    if (!digits)
        return 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        int eneg = 0, edigits = 0;
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            eneg = p[i++] == '-';
        for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, edigits++)
            if (exp < 100000)
                exp = exp * 10 + (p[i] - '0');
        if (!edigits)
            return 0;
        exp = eneg ? -exp : exp;
    }
    if (i != n)
        return 0;
    int e10 = exp - frac;
    if (significant <= 19 && mant <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)mant;
        v = e10 < 0 ? v / POW10[-e10] : v * POW10[e10];
        *out = neg ? -v : v;
        return 1;
    }
    char small[128], *buf = n < (int64_t)sizeof(small) ? small : malloc((size_t)n + 1), *end;
    if (!buf)
        return 0;
    memcpy(buf, p, (size_t)n);
    buf[n] = 0;
    double v = strtod(buf, &end);
    int ok = end == buf + n && isfinite(v);
    if (buf != small)
        free(buf);
    if (ok)
        *out = v;
    return ok;
}

typedef struct {
    int32_t *off;
    unsigned char *data;
    int32_t used;
} Column;

/* Append field p[:len] to a column as string `row`. Copies go in 16-byte blocks, which
   compile to a few moves, while the blocks stay inside the data (`end`); the column's
   buffer has 16 bytes of slack for the last block's overshoot. */
static inline void append(Column *c, int64_t row, const unsigned char *p, int64_t len,
                          const unsigned char *end)
{
    unsigned char *dst = c->data + c->used;
    if (p + ((len + 15) & ~(int64_t)15) <= end)
        for (int64_t k = 0; k < len; k += 16)
            memcpy(dst + k, p + k, 16);
    else
        memcpy(dst, p, (size_t)len);
    c->used += (int32_t)len;
    c->off[row + 1] = c->used;
}

/* The distinct values of a column, in first-seen order (a column of their own), and
   a hash table of their codes. Lines of a run usually repeat the previous line's qid
   and tag, which is checked first. */
typedef struct {
    Column values;
    int32_t n, last;
    uint64_t *slots, cap;
} Dict;

static int dict_grow(Dict *d)
{
    uint64_t cap = d->cap ? 2 * d->cap : 64, *slots = malloc(cap * sizeof(uint64_t));
    if (!slots)
        return 0;
    memset(slots, 0xFF, cap * sizeof(uint64_t));
    for (int32_t i = 0; i < d->n; i++) {
        const unsigned char *p = d->values.data + d->values.off[i];
        uint64_t h = string_hash(p, d->values.off[i + 1] - d->values.off[i], p), at = h & (cap - 1);
        while (slots[at] != EMPTY)
            at = (at + 1) & (cap - 1);
        slots[at] = ((h >> 32) << 32) | (uint64_t)i;
    }
    free(d->slots);
    d->slots = slots;
    d->cap = cap;
    return 1;
}

/* Code of p[:len] in d (adding it when new), or -1 when memory runs out. */
static ALWAYS_INLINE int32_t dict_code(Dict *d, const unsigned char *p, int64_t len, const unsigned char *end)
{
    if (d->last >= 0) {
        int32_t a = d->values.off[d->last], b = d->values.off[d->last + 1];
        if (b - a == len && bytes_equal(d->values.data + a, p, len))
            return d->last;
    }
    if (2 * (uint64_t)(d->n + 1) > d->cap && !dict_grow(d))
        return -1;
    uint64_t h = string_hash(p, len, end), tag = h >> 32, at = h & (d->cap - 1);
    for (; d->slots[at] != EMPTY; at = (at + 1) & (d->cap - 1)) {
        if ((d->slots[at] >> 32) != tag)
            continue;
        int32_t i = (int32_t)(d->slots[at] & 0xFFFFFFFFULL);
        int32_t a = d->values.off[i], b = d->values.off[i + 1];
        if (b - a == len && bytes_equal(d->values.data + a, p, len))
            return d->last = i;
    }
    append(&d->values, d->n, p, len, end);
    d->slots[at] = (tag << 32) | (uint64_t)d->n;
    return d->last = d->n++;
}

/* Outcome of reading one line's fields. */
enum { LINE_OK, LINE_BAD, LINE_LONG };

/* The fields of the line at d[i:] (scalar): up to nf + 1 tokens of ORD bytes separated
   by SEP bytes, then \n, \r\n or the end of the data. LINE_OK with the nf fields and
   *next (the start of the next line), else LINE_BAD (another number of fields, or a
   byte of another class). nf is a constant of each caller (6 for runs, 4 for qrels):
   the function is inlined into each, and compiled for that count. */
static ALWAYS_INLINE int line_fields(const unsigned char *d, int64_t n, int64_t i, const unsigned char **tok,
                                     int64_t *len, int64_t *next, const int nf)
{
    int k = 0;
    for (;;) {
        while (i < n && byte_class[d[i]] == SEP)
            i++;
        if (i == n || byte_class[d[i]] != ORD)
            break;
        int64_t start = i;
        while (i < n && byte_class[d[i]] == ORD)
            i++;
        if (k == nf)
            return LINE_BAD;
        tok[k] = d + start;
        len[k++] = i - start;
    }
    if (i < n) {  /* the line end: \n or \r\n; anything else is not clean */
        if (d[i] == '\r' && i + 1 < n && d[i + 1] == '\n')
            i++;
        if (d[i] != '\n')
            return LINE_BAD;
        i++;
    }
    *next = i;
    return k == nf ? LINE_OK : LINE_BAD;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* Bit masks of the 16 bytes at p: separators (space, tab), newlines, and printable
   ASCII (0x21-0x7E but '#' and '\\', as byte_class; bytes from 0x80 are negative as
   signed bytes). */
static inline void classify16(const unsigned char *p, uint64_t *sep, uint64_t *nl, uint64_t *ord, int at)
{
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    __m128i s = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
    __m128i odd = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F)),
                               _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('#')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    __m128i o = _mm_andnot_si128(odd, _mm_cmpgt_epi8(v, _mm_set1_epi8(0x20)));
    *sep |= (uint64_t)(uint16_t)_mm_movemask_epi8(s) << at;
    *nl |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))) << at;
    *ord |= (uint64_t)(uint16_t)_mm_movemask_epi8(o) << at;
}

/* line_fields for a line that starts at p and ends (\n) within its first 64 bytes,
   all of which are readable: the classes of 64 bytes at once, the fields from the bit
   masks, without a branch per byte. LINE_LONG when no \n is in those 64 bytes (the
   caller then reads the line with line_fields). Same outcomes as line_fields, for the
   same constant nf. */
static ALWAYS_INLINE int line_fields64(const unsigned char *p, const unsigned char **tok, int64_t *len,
                                       int64_t *advance, const int nf)
{
    uint64_t sep = 0, nl = 0, ord = 0;
    classify16(p, &sep, &nl, &ord, 0);
    classify16(p + 16, &sep, &nl, &ord, 16);
    classify16(p + 32, &sep, &nl, &ord, 32);
    classify16(p + 48, &sep, &nl, &ord, 48);
    if (!nl)
        return LINE_LONG;
    int end = __builtin_ctzll(nl);                   /* the \n */
    int stop = end > 0 && p[end - 1] == '\r' ? end - 1 : end;  /* \r\n */
    uint64_t line = stop ? (~0ULL >> (64 - stop)) : 0;
    if (((sep | ord) & line) != line)
        return LINE_BAD;                              /* a byte of another class */
    uint64_t o = ord & line, starts = o & ~(o << 1), ends = o & ~(o >> 1);
    for (int k = 0; k < nf; k++) {
        if (!starts)
            return LINE_BAD;                          /* fewer than nf fields */
        int a = __builtin_ctzll(starts), b = __builtin_ctzll(ends);
        starts &= starts - 1;
        ends &= ends - 1;
        tok[k] = p + a;
        len[k] = b - a + 1;
    }
    if (starts)
        return LINE_BAD;                              /* more than nf */
    *advance = end + 1;
    return LINE_OK;
}
#endif

/* The fields of the line at d[i:] (line_fields' contract): the SSE2 scan when 64 bytes
   remain and the line fits them, else byte by byte. */
static ALWAYS_INLINE int split_line(const unsigned char *d, int64_t n, int64_t i, const unsigned char **tok,
                                    int64_t *len, int64_t *next, int nfields)
{
    int outcome = LINE_LONG;
#if defined(__SSE2__)
    if (n - i >= 64) {
        int64_t advance = 0;
        outcome = line_fields64(d + i, tok, len, &advance, nfields);
        *next = i + advance;
    }
#endif
    if (outcome == LINE_LONG)
        outcome = line_fields(d, n, i, tok, len, next, nfields);
    return outcome;
}

PyDoc_STRVAR(parse_run_doc,
"parse_run(data, qid_off, qid_data, qid_code, docno_off, docno_data, tag_off, tag_data,\n"
"          tag_code, score) -> (lines, qids, tags)\n\n"
"Read a clean run file: every line (ending in \\n or \\r\\n, the last one possibly not)\n"
"holds six fields separated by spaces or tabs, fields 1, 3 and 6 (qid, docno, tag) of\n"
"printable ASCII other than # and the backslash, field 5 a finite decimal score. Fills the docno column (int32\n"
"offsets, lines + 1 entries, and bytes, len(data) + 16), the float64 scores, and for\n"
"qid and tag the int32 code of each line and the column of distinct values (first-seen\n"
"order) the codes index. Returns the number of lines and of distinct qids and tags;\n"
"lines is -1, the buffers partly written, for any other file (empty, 2 GiB or more, a\n"
"blank, comment or malformed line, other bytes), which the caller then reads another way.");

static PyObject *parse_run(PyObject *self, PyObject *args)
{
    Py_buffer data_b, qo_b, qd_b, qc_b, doo_b, dod_b, to_b, td_b, tc_b, score_b;
    if (!PyArg_ParseTuple(args, "y*w*w*w*w*w*w*w*w*w*", &data_b, &qo_b, &qd_b, &qc_b, &doo_b,
                          &dod_b, &to_b, &td_b, &tc_b, &score_b))
        return NULL;
    PyObject *result = NULL;
    const unsigned char *d = (const unsigned char *)data_b.buf;
    int64_t n = data_b.len, max_lines = score_b.len / 8;
    Dict qid = {{qo_b.buf, qd_b.buf, 0}, 0, -1, NULL, 0}, tag = {{to_b.buf, td_b.buf, 0}, 0, -1, NULL, 0};
    if (qo_b.len < (max_lines + 1) * 4 || doo_b.len < (max_lines + 1) * 4 || to_b.len < (max_lines + 1) * 4 ||
        qc_b.len < max_lines * 4 || tc_b.len < max_lines * 4 ||
        qd_b.len < n + 16 || dod_b.len < n + 16 || td_b.len < n + 16) {
        PyErr_SetString(PyExc_ValueError, "parse_run: output buffers too small");
        goto done;
    }
    Column doc = {doo_b.buf, dod_b.buf, 0};
    int32_t *qcode = (int32_t *)qc_b.buf, *tcode = (int32_t *)tc_b.buf;
    double *score = (double *)score_b.buf;
    int64_t lines = -1;
    int no_memory = 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t row = 0, i = 0;
    int ok = n > 0 && n < INT32_MAX;
    qid.values.off[0] = doc.off[0] = tag.values.off[0] = 0;
    while (ok && i < n) {
        const unsigned char *tok[6];
        int64_t len[6], next = 0;
        int outcome = split_line(d, n, i, tok, len, &next, 6);
        if (outcome != LINE_OK || tok[0][0] == '#' || row >= max_lines ||
            !parse_score(tok[4], len[4], &score[row])) {
            ok = 0;
            break;
        }
        i = next;
        qcode[row] = dict_code(&qid, tok[0], len[0], d + n);
        tcode[row] = dict_code(&tag, tok[5], len[5], d + n);
        if (qcode[row] < 0 || tcode[row] < 0) {
            ok = 0;
            no_memory = 1;
            break;
        }
        append(&doc, row, tok[2], len[2], d + n);
        row++;
    }
    if (ok)
        lines = row;
    Py_END_ALLOW_THREADS
    free(qid.slots);
    free(tag.slots);
    if (no_memory)
        PyErr_NoMemory();
    else
        result = Py_BuildValue("(Lii)", (long long)lines, qid.n, tag.n);
done:
    release((Py_buffer *[]){&data_b, &qo_b, &qd_b, &qc_b, &doo_b, &dod_b, &to_b, &td_b, &tc_b,
                             &score_b}, 10);
    return result;
}

/* ---- reading clean qrels files ---- */

/* The integer p[:n] of the form [+-]?[0-9]{1,18} in *out (18 digits always fit int64);
   0 when p[:n] has another form, 19 digits or more included (leading zeros count). */
static inline int parse_rel(const unsigned char *p, int64_t n, int64_t *out)
{
    int64_t i = 0, v = 0;
    int neg = 0;
    if (n > 0 && (p[0] == '+' || p[0] == '-'))
        neg = p[i++] == '-';
    if (n - i < 1 || n - i > 18)
        return 0;
    for (; i < n; i++) {
        unsigned c = (unsigned)p[i] - '0';
        if (c > 9)
            return 0;
        v = v * 10 + (int64_t)c;
    }
    *out = neg ? -v : v;
    return 1;
}

PyDoc_STRVAR(parse_qrels_doc,
"parse_qrels(data, qid_off, qid_data, qid_code, docno_off, docno_data, rel) -> (lines, qids)\n\n"
"Read a clean qrels file: every line (ending in \\n or \\r\\n, the last one possibly not)\n"
"holds four fields of printable ASCII other than # and the backslash, separated by\n"
"spaces or tabs, field 4 (rel) an integer [+-]?[0-9]+ of at\n"
"most 18 digits; field 2 is ignored. Fills the docno column (int32 offsets, lines + 1\n"
"entries, and bytes, len(data) + 16), the int64 grades, and for qid the int32 code of\n"
"each line and the column of distinct qids (first-seen order) the codes index. rel holds\n"
"at most its length / 8 lines, the other buffers as many. Returns the number of lines\n"
"and of distinct qids; lines is -1, the buffers partly written, for any other file\n"
"(empty or of 2^31 - 1 bytes or more, more lines than rel holds, a blank, comment or\n"
"malformed line, a # or a backslash anywhere, other bytes), which the caller then reads\n"
"another way.");

static PyObject *parse_qrels(PyObject *self, PyObject *args)
{
    Py_buffer data_b, qo_b, qd_b, qc_b, doo_b, dod_b, rel_b;
    if (!PyArg_ParseTuple(args, "y*w*w*w*w*w*w*", &data_b, &qo_b, &qd_b, &qc_b, &doo_b, &dod_b, &rel_b))
        return NULL;
    PyObject *result = NULL;
    const unsigned char *d = (const unsigned char *)data_b.buf;
    int64_t n = data_b.len, max_lines = rel_b.len / 8;
    Dict qid = {{qo_b.buf, qd_b.buf, 0}, 0, -1, NULL, 0};
    if (qo_b.len < (max_lines + 1) * 4 || doo_b.len < (max_lines + 1) * 4 || qc_b.len < max_lines * 4 ||
        qd_b.len < n + 16 || dod_b.len < n + 16) {
        PyErr_SetString(PyExc_ValueError, "parse_qrels: output buffers too small");
        goto done;
    }
    Column doc = {doo_b.buf, dod_b.buf, 0};
    int32_t *qcode = (int32_t *)qc_b.buf;
    int64_t *rel = (int64_t *)rel_b.buf;
    int64_t lines = -1;
    int no_memory = 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t row = 0, i = 0;
    int ok = n > 0 && n < INT32_MAX;  /* a backslash or '#' anywhere: not clean (byte_class) */
    qid.values.off[0] = doc.off[0] = 0;
    while (ok && i < n) {
        const unsigned char *tok[4];
        int64_t len[4], next = 0;
        int outcome = split_line(d, n, i, tok, len, &next, 4);
        if (outcome != LINE_OK || tok[0][0] == '#' || row >= max_lines || !parse_rel(tok[3], len[3], &rel[row])) {
            ok = 0;
            break;
        }
        i = next;
        qcode[row] = dict_code(&qid, tok[0], len[0], d + n);
        if (qcode[row] < 0) {
            ok = 0;
            no_memory = 1;
            break;
        }
        append(&doc, row, tok[2], len[2], d + n);
        row++;
    }
    if (ok)
        lines = row;
    Py_END_ALLOW_THREADS
    free(qid.slots);
    if (no_memory)
        PyErr_NoMemory();
    else
        result = Py_BuildValue("(Li)", (long long)lines, qid.n);
done:
    release((Py_buffer *[]){&data_b, &qo_b, &qd_b, &qc_b, &doo_b, &dod_b, &rel_b}, 7);
    return result;
}

/* ---- hash tables ---- */

PyDoc_STRVAR(build_table_doc,
"build_table(topic, offsets, data, base, slots, mask) -> int\n\n"
"Insert strings 0..n-1 (topic[i] int64 codes; strings as int64 offsets and bytes) into\n"
"the uint64 buffer `slots`, every slot EMPTY (all ones): topic t owns the slots\n"
"base[t]:base[t + 1], a power of two of them, more than its strings. A string equal to\n"
"an earlier one of its topic is not inserted; returns how many strings were such repeats.");

static PyObject *build_table(PyObject *self, PyObject *args)
{
    Py_buffer topic_b, off_b, data_b, base_b, slots_b;
    unsigned long long hmask;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*K", &topic_b, &off_b, &data_b, &base_b, &slots_b, &hmask))
        return NULL;
    PyObject *result = NULL;
    Strings s;
    Py_ssize_t n, n_base, n_slots;
    if (!view(&topic_b, 8, "topic", &n) || !strings_from(&off_b, &data_b, "strings", &s) ||
        !view(&base_b, 8, "base", &n_base) || !view(&slots_b, 8, "slots", &n_slots))
        goto done;
    const int64_t *topic = (const int64_t *)topic_b.buf, *base = (const int64_t *)base_b.buf;
    if (n != s.n || n >= 0xFFFFFFFFLL || !regions_ok(base, n_base, n_slots)) {
        PyErr_SetString(PyExc_ValueError, "build_table: topic and offsets must describe the same "
                        "strings (fewer than 2^32 - 1), base the slots of each topic (powers of two)");
        goto done;
    }
    uint64_t *slots = (uint64_t *)slots_b.buf;
    int64_t repeats = 0, bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *p;
        int64_t len, end, t = topic[i];
        if (t < 0 || t + 1 >= n_base || !string_at(&s, i, &p, &len)) {
            bad = i;
            break;
        }
        uint64_t h = string_hash(p, len, s.data + s.data_len) & hmask, *region = slots + base[t];
        uint64_t cap = (uint64_t)(base[t + 1] - base[t]);
        if (probe(region, cap, &s, NULL, h, p, len, &end) >= 0)
            repeats++;
        else
            region[end] = ((h >> 32) << 32) | (uint64_t)i;
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0)
        PyErr_Format(PyExc_ValueError, "build_table: string %lld has no valid topic or bytes", (long long)bad);
    else
        result = PyLong_FromLongLong(repeats);
done:
    release((Py_buffer *[]){&topic_b, &off_b, &data_b, &base_b, &slots_b}, 5);
    return result;
}

PyDoc_STRVAR(dedupe_match_doc,
"dedupe_match(rows, topic, offsets, data, base, slots, table_offsets, table_data, mask,\n"
"             duplicate, match) -> int\n\n"
"Visit k = 0..m-1 in order: row k is string rows[k] of (offsets, data) with topic code\n"
"topic[k], non-decreasing in k (a topic's rows are consecutive). duplicate[k] (uint8) =\n"
"1 when an earlier row has the same topic and bytes, else 0; match[k] (int64) = the\n"
"string of the table (base, slots, table_offsets, table_data; built by build_table with\n"
"the same mask) holding the same pair, or -1 (also for duplicates). Returns the number\n"
"of duplicates.");

static PyObject *dedupe_match(PyObject *self, PyObject *args)
{
    Py_buffer rows_b, topic_b, off_b, data_b, base_b, slots_b, toff_b, tdata_b, dup_b, match_b;
    unsigned long long hmask;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*Kw*w*", &rows_b, &topic_b, &off_b, &data_b,
                          &base_b, &slots_b, &toff_b, &tdata_b, &hmask, &dup_b, &match_b))
        return NULL;
    PyObject *result = NULL;
    Strings s, ts;
    Py_ssize_t m, m_topic, n_base, n_slots, m_match;
    uint64_t *seen = NULL;
    if (!view(&rows_b, 8, "rows", &m) || !view(&topic_b, 8, "topic", &m_topic) ||
        !strings_from(&off_b, &data_b, "strings", &s) || !view(&base_b, 8, "base", &n_base) ||
        !view(&slots_b, 8, "slots", &n_slots) ||
        !strings_from(&toff_b, &tdata_b, "table strings", &ts) ||
        !view(&match_b, 8, "match", &m_match))
        goto done;
    const int64_t *rows = (const int64_t *)rows_b.buf, *topic = (const int64_t *)topic_b.buf;
    const int64_t *base = (const int64_t *)base_b.buf;
    if (m_topic != m || dup_b.len != m || m_match != m || m >= 0xFFFFFFFFLL ||
        !regions_ok(base, n_base, n_slots)) {
        PyErr_SetString(PyExc_ValueError, "dedupe_match: rows, topic, duplicate and match must "
                        "have one entry per row (fewer than 2^32 - 1), base the slots of each topic");
        goto done;
    }
    const uint64_t *tslots = (const uint64_t *)slots_b.buf;
    unsigned char *dup = (unsigned char *)dup_b.buf;
    int64_t *match = (int64_t *)match_b.buf;
    /* the table of the rows seen and the hashes of the rows, one topic at a time:
       sized for the largest topic */
    int64_t most = 0;
    for (int64_t k = 0, start = 0; k <= m; k++) {
        if (k == m || topic[k] != topic[start]) {
            most = k - start > most ? k - start : most;
            start = k;
        }
    }
    uint64_t seen_cap = 16;
    while (seen_cap < 2 * (uint64_t)most)
        seen_cap <<= 1;
    seen = malloc((seen_cap + (uint64_t)most) * sizeof(uint64_t));
    if (!seen) {
        PyErr_NoMemory();
        goto done;
    }
    uint64_t *hash = seen + seen_cap;
    int64_t n_dup = 0, bad = -1;
    const char *why = NULL;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t first = 0, stop; first < m && bad < 0; first = stop) {
        int64_t t = topic[first];
        if (first > 0 && t < topic[first - 1]) {
            bad = first, why = "topics must not decrease";
            break;
        }
        if (t < 0 || t + 1 >= n_base) {
            bad = first, why = "topic code outside the table";
            break;
        }
        /* the topic's rows: hash them all first (independent work), so that the probes
           below can prefetch the table slots of rows a few steps ahead */
        for (stop = first; stop < m && topic[stop] == t; stop++) {
            const unsigned char *p;
            int64_t len;
            if (rows[stop] < 0 || rows[stop] >= s.n || !string_at(&s, rows[stop], &p, &len)) {
                bad = stop, why = "not a string of the data";
                break;
            }
            hash[stop - first] = string_hash(p, len, s.data + s.data_len) & hmask;
        }
        if (bad >= 0)
            break;
        uint64_t cap = 16;
        while (cap < 2 * (uint64_t)(stop - first))
            cap <<= 1;
        memset(seen, 0xFF, cap * sizeof(uint64_t));
        const uint64_t *region = tslots + base[t];
        uint64_t region_cap = (uint64_t)(base[t + 1] - base[t]);
        for (int64_t k = first; k < stop; k++) {
            const unsigned char *p;
            int64_t len, end;
            uint64_t h = hash[k - first];
            if (k + PREFETCH < stop)
                __builtin_prefetch(region + (hash[k + PREFETCH - first] & (region_cap - 1)));
            string_at(&s, rows[k], &p, &len);
            if (probe(seen, cap, &s, rows, h, p, len, &end) >= 0) {
                dup[k] = 1;
                match[k] = -1;
                n_dup++;
                continue;
            }
            seen[end] = ((h >> 32) << 32) | (uint64_t)k;
            dup[k] = 0;
            match[k] = probe(region, region_cap, &ts, NULL, h, p, len, &end);
        }
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0)
        PyErr_Format(PyExc_ValueError, "dedupe_match: row %lld: %s", (long long)bad, why);
    else
        result = PyLong_FromLongLong(n_dup);
done:
    free(seen);
    release((Py_buffer *[]){&rows_b, &topic_b, &off_b, &data_b, &base_b, &slots_b, &toff_b, &tdata_b,
                             &dup_b, &match_b}, 10);
    return result;
}

/* ---- ordering tied rows by document id ---- */

/* Strings i and j of s compared as trec_eval compares docnos (strcmp: bytes, unsigned;
   a string before its extensions): < 0, 0 or > 0. */
static inline int compare_strings(const Strings *s, int64_t i, int64_t j)
{
    const unsigned char *p = s->data + s->offsets[i], *q = s->data + s->offsets[j];
    int64_t a = s->offsets[i + 1] - s->offsets[i], b = s->offsets[j + 1] - s->offsets[j];
    int c = memcmp(p, q, (size_t)(a < b ? a : b));
    return c ? c : (a > b) - (a < b);
}

/* Stable sort of rows[0:n] by string descending; tmp holds n entries. Insertion sort
   for short runs (most tie groups), merge sort above. */
static void sort_desc(const Strings *s, int64_t *rows, int64_t *tmp, int64_t n)
{
    if (n <= 16) {
        for (int64_t k = 1; k < n; k++) {
            int64_t r = rows[k], m = k;
            while (m > 0 && compare_strings(s, rows[m - 1], r) < 0) {  /* strictly smaller moves right: stable */
                rows[m] = rows[m - 1];
                m--;
            }
            rows[m] = r;
        }
        return;
    }
    int64_t half = n / 2;
    sort_desc(s, rows, tmp, half);
    sort_desc(s, rows + half, tmp, n - half);
    if (compare_strings(s, rows[half - 1], rows[half]) >= 0)
        return;  /* already in order */
    memcpy(tmp, rows, (size_t)half * sizeof(int64_t));
    int64_t i = 0, j = half, k = 0;
    while (i < half && j < n)
        rows[k++] = compare_strings(s, rows[j], tmp[i]) > 0 ? rows[j++] : tmp[i++];
    while (i < half)
        rows[k++] = tmp[i++];
}

PyDoc_STRVAR(sort_ties_doc,
"sort_ties(rows, topic, key, offsets, data) -> int\n\n"
"rows (int64, in place) are sorted by topic then key: sort each maximal block of\n"
"consecutive rows with equal topic[row] (int64) and key[row] (float32 or float64,\n"
"compared ==; the caller turns -0.0 into 0.0) by string descending, string r being\n"
"data[offsets[r]:offsets[r + 1]] (int64 offsets): bytes compared unsigned, a string\n"
"after its prefixes, as trec_eval breaks score ties. Stable: equal strings keep their\n"
"order. Returns the number of rows in blocks of two or more.");

/* Row rows[k] and rows[k - 1] share topic and key. */
static inline int same_key(const int64_t *rows, int64_t k, const int64_t *topic, const void *key, int wide)
{
    int64_t a = rows[k - 1], b = rows[k];
    if (topic[a] != topic[b])
        return 0;
    return wide ? ((const double *)key)[a] == ((const double *)key)[b]
                : ((const float *)key)[a] == ((const float *)key)[b];
}

static PyObject *sort_ties(PyObject *self, PyObject *args)
{
    Py_buffer rows_b, topic_b, key_b, off_b, data_b;
    if (!PyArg_ParseTuple(args, "w*y*y*y*y*", &rows_b, &topic_b, &key_b, &off_b, &data_b))
        return NULL;
    PyObject *result = NULL;
    Strings s;
    Py_ssize_t n, n_topic;
    int64_t *tmp = NULL;
    if (!view(&rows_b, 8, "rows", &n) || !view(&topic_b, 8, "topic", &n_topic) ||
        !strings_from(&off_b, &data_b, "strings", &s))
        goto done;
    int wide = key_b.len == 8 * n_topic;  /* the key's width from its length */
    if ((!wide && key_b.len != 4 * n_topic) || n_topic != s.n) {
        PyErr_SetString(PyExc_ValueError, "sort_ties: topic (int64), key (float32 or float64) and the "
                        "strings need one entry per row");
        goto done;
    }
    int64_t *rows = (int64_t *)rows_b.buf;
    const int64_t *topic = (const int64_t *)topic_b.buf;
    int ok = 1;
    for (Py_ssize_t k = 0; ok && k < n; k++) {
        const unsigned char *p;
        int64_t len;
        ok = rows[k] >= 0 && rows[k] < s.n && string_at(&s, rows[k], &p, &len);
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "sort_ties: rows must be strings of the data");
        goto done;
    }
    int64_t widest = 1, tied = 0;
    for (int64_t k = 1, first = 0; k <= n; k++)
        if (k == n || !same_key(rows, k, topic, key_b.buf, wide)) {
            widest = k - first > widest ? k - first : widest;
            first = k;
        }
    tmp = malloc((size_t)(widest / 2 + 1) * sizeof(int64_t));
    if (!tmp) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t k = 1, first = 0; k <= n; k++)
        if (k == n || !same_key(rows, k, topic, key_b.buf, wide)) {
            if (k - first > 1) {
                sort_desc(&s, rows + first, tmp, k - first);
                tied += k - first;
            }
            first = k;
        }
    Py_END_ALLOW_THREADS
    result = PyLong_FromLongLong(tied);
done:
    free(tmp);
    release((Py_buffer *[]){&rows_b, &topic_b, &key_b, &off_b, &data_b}, 5);
    return result;
}

/* ---- writing run files ---- */

/* Write v in decimal at p; returns the end. */
static char *put_int(char *p, int64_t v)
{
    char digits[20];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0)
        *p++ = '-';
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        *p++ = digits[--n];
    return p;
}

/* Write k / 10^decimals (0 <= decimals <= 18) in decimal at p, without the fraction's
   trailing zeros and without a point when the fraction is zero: 52152, 4 -> 5.2152;
   30000, 4 -> 3; -5, 4 -> -0.0005. Returns the end. */
static char *put_scaled(char *p, int64_t k, int decimals)
{
    char digits[24];  /* least significant first, at least decimals + 1 of them */
    int n = 0, low = 0;
    uint64_t u = k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k;
    if (k < 0)
        *p++ = '-';
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u || n <= decimals);
    while (low < decimals && digits[low] == '0')
        low++;
    for (int i = n - 1; i >= decimals; i--)
        *p++ = digits[i];
    if (low < decimals) {
        *p++ = '.';
        for (int i = decimals - 1; i >= low; i--)
            *p++ = digits[i];
    }
    return p;
}

/* Copy a fixed-width numpy bytes value without its trailing NULs (numpy's padding). */
static char *put_fixed(char *p, const char *value, Py_ssize_t width)
{
    while (width > 0 && value[width - 1] == '\0')
        width--;
    memcpy(p, value, (size_t)width);
    return p + width;
}

PyDoc_STRVAR(run_lines_doc,
"run_lines(qid, qid_width, docno, docno_width, rank, k, decimals, special, text_offsets,\n"
"          text_data, col2, tag, sep) -> bytes\n\n"
"The lines of a run file, row i = 0..n-1 being\n"
"    qid[i] SEP col2 SEP docno[i] SEP rank[i] SEP score(i) SEP tag \\n\n"
"qid and docno: numpy fixed-width bytes (n values of qid_width / docno_width bytes,\n"
"trailing NULs dropped, as numpy does); rank and k: int64; special: uint8. score(i) is\n"
"k[i] / 10^decimals written without the fraction's trailing zeros (0 <= decimals <= 6,\n"
"|k| < 2^62) when special[i] is 0; the rows whose special is 1 take, in order, the\n"
"strings of (text_offsets, text_data) (string j = text_data[off[j] : off[j + 1]]).");

static PyObject *run_lines(PyObject *self, PyObject *args)
{
    Py_buffer qid_b, doc_b, rank_b, k_b, sp_b, toff_b, tdata_b, col2_b, tag_b, sep_b;
    Py_ssize_t qw, dw;
    int decimals;
    if (!PyArg_ParseTuple(args, "y*ny*ny*y*iy*y*y*y*y*y*", &qid_b, &qw, &doc_b, &dw, &rank_b, &k_b,
                          &decimals, &sp_b, &toff_b, &tdata_b, &col2_b, &tag_b, &sep_b))
        return NULL;
    PyObject *result = NULL;
    Strings texts;
    Py_ssize_t n, n_k;
    if (!view(&rank_b, 8, "rank", &n) || !view(&k_b, 8, "k", &n_k) ||
        !strings_from(&toff_b, &tdata_b, "texts", &texts))
        goto done;
    if (qw <= 0 || dw <= 0 || qid_b.len != n * qw || doc_b.len != n * dw || n_k != n || sp_b.len != n ||
        decimals < 0 || decimals > 6 || sep_b.len != 1) {
        PyErr_SetString(PyExc_ValueError, "run_lines: qid, docno, rank, k and special must describe "
                        "the same rows, decimals 0..6, sep one byte");
        goto done;
    }
    const unsigned char *special = (const unsigned char *)sp_b.buf;
    const int64_t *rank = (const int64_t *)rank_b.buf, *k = (const int64_t *)k_b.buf;
    Py_ssize_t n_special = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        n_special += special[i] != 0;
    if (n_special != texts.n || texts.offsets[0] != 0 || texts.offsets[texts.n] > texts.data_len) {
        PyErr_SetString(PyExc_ValueError, "run_lines: one text per special row, within text_data");
        goto done;
    }
    for (Py_ssize_t j = 0; j < texts.n; j++)
        if (texts.offsets[j + 1] < texts.offsets[j]) {
            PyErr_SetString(PyExc_ValueError, "run_lines: text offsets must not decrease");
            goto done;
        }
    /* per line at most: the fields, 5 separators, a newline, 20 bytes of rank, 22 of score */
    Py_ssize_t per_line = qw + col2_b.len + dw + tag_b.len + 6 + 20 + 22;
    result = PyBytes_FromStringAndSize(NULL, n * per_line + texts.offsets[texts.n]);
    if (!result)
        goto done;
    char *out = PyBytes_AS_STRING(result), *p = out, sep = *(const char *)sep_b.buf;
    const char *qid = (const char *)qid_b.buf, *doc = (const char *)doc_b.buf;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        p = put_fixed(p, qid + i * qw, qw);
        *p++ = sep;
        memcpy(p, col2_b.buf, (size_t)col2_b.len);
        p += col2_b.len;
        *p++ = sep;
        p = put_fixed(p, doc + i * dw, dw);
        *p++ = sep;
        p = put_int(p, rank[i]);
        *p++ = sep;
        if (special[i]) {
            int64_t len = texts.offsets[j + 1] - texts.offsets[j];
            memcpy(p, texts.data + texts.offsets[j], (size_t)len);
            p += len;
            j++;
        } else {
            p = put_scaled(p, k[i], decimals);
        }
        *p++ = sep;
        memcpy(p, tag_b.buf, (size_t)tag_b.len);
        p += tag_b.len;
        *p++ = '\n';
    }
    Py_END_ALLOW_THREADS
    if (_PyBytes_Resize(&result, p - out) < 0)
        result = NULL;
done:
    release((Py_buffer *[]){&qid_b, &doc_b, &rank_b, &k_b, &sp_b, &toff_b, &tdata_b, &col2_b, &tag_b, &sep_b}, 10);
    return result;
}

static PyMethodDef methods[] = {
    {"parse_run", parse_run, METH_VARARGS, parse_run_doc},
    {"parse_qrels", parse_qrels, METH_VARARGS, parse_qrels_doc},
    {"build_table", build_table, METH_VARARGS, build_table_doc},
    {"dedupe_match", dedupe_match, METH_VARARGS, dedupe_match_doc},
    {"sort_ties", sort_ties, METH_VARARGS, sort_ties_doc},
    {"run_lines", run_lines, METH_VARARGS, run_lines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Compiled kernels of reeval: clean run and qrels files, per-topic hash tables, run lines (see _kernels.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    init_byte_class();
    return PyModule_Create(&module);
}
