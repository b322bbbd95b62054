/* Compiled kernels of reeval.stats: the null statistics of the randomised Tukey HSD of
 * pairwise preferences (reeval/stats/randomised.py, null_max_preference), and the counts of
 * trials one run beats another by more than a threshold (pair_sign_counts, the rareness
 * stability of reeval/analyses/rareness/analysis.py), and where two position vectors first
 * differ (first_differences, lexicographic precision's sgnLP and rrLP of figure 8's
 * incomplete-judgment samples, reeval/analyses/lexiprecision/incomplete.py), and the pairs
 * of runs whose position vectors tie (tied_pairs, figure 9's label-removal rows,
 * reeval/analyses/lexiprecision/ties.py).
 *
 * preference_null_max(F, perms, out, T, S, exact) computes, for each resample b of a
 * batch of perms (b x T x S, int32, perms[b, t] a permutation of 0..S-1),
 *
 *     out[b] = max_{i<j} |sum_t F[t, perms[b, t, i], perms[b, t, j]]|
 *
 * with F the T x S x S per-topic preference matrices, C-contiguous: int8 (exact = 1,
 * totals in int32, exact while T * 127 < 2^31, checked) or float64 (exact = 0, totals in float64). Every total is
 * accumulated from 0 topic after topic, t = 0, 1, ..., T - 1, as the numpy path does, so
 * both give the same bits (this file is compiled without -ffast-math: no reassociation).
 * Pairs are visited in numpy.triu_indices order; the maximum starts at 0 (numpy's
 * initial=0) and a NaN total makes it NaN (numpy's maximum propagates NaN).
 *
 * Resamples are taken in blocks whose totals (block x pairs) fit in the cache; within a
 * block the topic loop is outside the resample loop, so that one topic's matrix is read
 * from the cache too.
 * Every permutation entry is checked to lie in 0..S-1 before any memory is read.
 *
 * Only the Python C API and the buffer protocol are used (no numpy headers); the GIL is
 * released while the loops run.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Resamples per block: the block's totals (block x pairs) stay in the processor's cache
   while the topics pass over them. */
static Py_ssize_t block_of(Py_ssize_t pairs, Py_ssize_t item)
{
    Py_ssize_t n = ((Py_ssize_t)1 << 20) / (pairs * item + 1);
    return n < 1 ? 1 : n;
}

/* On x86-64 with GCC and glibc, a function marked VECTOR_CLONES is also compiled for AVX2
   and the processor's best version is chosen when the module loads (target_clones, through
   glibc's ifunc; elsewhere the one baseline version): sign_counts
   subtracts and compares four differences at a time (the baseline x86-64 build does not
   vectorise that loop). Each count is still made of the same subtractions and comparisons,
   element by element (no multiply, so no fused multiply-add), so every version gives the
   same counts. (The HSD's totals, gathers of one preference at a time, were measured slower
   with AVX2 gathers and stay scalar.) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* b x pairs totals of one batch, topic by topic (int8 preferences, int32 totals: exact
   while T * 127 < 2^31, which the caller checks) */
static void totals_int8(const int8_t *F, const int32_t *perms, int32_t *acc, Py_ssize_t b,
                        Py_ssize_t T, Py_ssize_t S, Py_ssize_t pairs)
{
    Py_ssize_t block = block_of(pairs, 4);
    for (Py_ssize_t r0 = 0; r0 < b; r0 += block) {
        Py_ssize_t r1 = r0 + block < b ? r0 + block : b;
        for (Py_ssize_t t = 0; t < T; t++) {
            const int8_t *Ft = F + t * S * S;
            for (Py_ssize_t r = r0; r < r1; r++) {
                const int32_t *p = perms + (r * T + t) * S;
                int32_t *a = acc + r * pairs;
                for (Py_ssize_t i = 0; i + 1 < S; i++) {
                    const int8_t *row = Ft + (Py_ssize_t)p[i] * S;
                    for (Py_ssize_t j = i + 1; j < S; j++)
                        *a++ += row[p[j]];
                }
            }
        }
    }
}

/* the same with float64 preferences and totals */
static void totals_float(const double *F, const int32_t *perms, double *acc, Py_ssize_t b,
                         Py_ssize_t T, Py_ssize_t S, Py_ssize_t pairs)
{
    Py_ssize_t block = block_of(pairs, 8);
    for (Py_ssize_t r0 = 0; r0 < b; r0 += block) {
        Py_ssize_t r1 = r0 + block < b ? r0 + block : b;
        for (Py_ssize_t t = 0; t < T; t++) {
            const double *Ft = F + t * S * S;
            for (Py_ssize_t r = r0; r < r1; r++) {
                const int32_t *p = perms + (r * T + t) * S;
                double *a = acc + r * pairs;
                for (Py_ssize_t i = 0; i + 1 < S; i++) {
                    const double *row = Ft + (Py_ssize_t)p[i] * S;
                    for (Py_ssize_t j = i + 1; j < S; j++)
                        *a++ += row[p[j]];
                }
            }
        }
    }
}

static int perms_valid(const int32_t *perms, Py_ssize_t n, Py_ssize_t S)
{
    for (Py_ssize_t k = 0; k < n; k++)
        if (perms[k] < 0 || perms[k] >= S)
            return 0;
    return 1;
}

static void release(Py_buffer *buffers[], int n)
{
    for (int k = 0; k < n; k++)
        if (buffers[k]->obj)
            PyBuffer_Release(buffers[k]);
}

PyDoc_STRVAR(preference_null_max_doc,
"preference_null_max(F, perms, out, T, S, exact)\n\n"
"out[b] = max_{i<j} |sum_t F[t, perms[b, t, i], perms[b, t, j]]| for each resample b of\n"
"the batch: F T x S x S (int8 when exact, else float64), perms b x T x S int32, out b float64,\n"
"all C-contiguous. Totals are summed topic after topic (see _kernels.c).");

static PyObject *preference_null_max(PyObject *self, PyObject *args)
{
    Py_buffer F_b = {0}, perms_b = {0}, out_b = {0};
    Py_ssize_t T, S;
    int exact;
    if (!PyArg_ParseTuple(args, "y*y*w*nnp", &F_b, &perms_b, &out_b, &T, &S, &exact))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t item = exact ? 1 : 8;
    if (T < 0 || S < 0 || (S > 0 && T > PY_SSIZE_T_MAX / S / S / 8) || (exact && T > INT32_MAX / 127)) {
        PyErr_SetString(PyExc_ValueError, "preference_null_max: T and S must be small non-negative "
                        "sizes (exact: T * 127 < 2^31)");
        goto done;
    }
    Py_ssize_t b = out_b.len / 8, pairs = S * (S - 1) / 2;
    if (F_b.len != T * S * S * item || out_b.len % 8 || perms_b.len != b * T * S * 4) {
        PyErr_SetString(PyExc_ValueError, "preference_null_max: F must hold T x S x S values "
                        "(int8 or float64), perms b x T x S int32 and out b float64");
        goto done;
    }
    if (!perms_valid((const int32_t *)perms_b.buf, b * T * S, S)) {
        PyErr_SetString(PyExc_ValueError, "preference_null_max: a permutation entry is outside 0..S-1");
        goto done;
    }
    void *acc = calloc(b * pairs > 0 ? (size_t)(b * pairs) : 1, exact ? 4 : 8);
    if (!acc) {
        PyErr_NoMemory();
        goto done;
    }
    double *out = (double *)out_b.buf;
    Py_BEGIN_ALLOW_THREADS
    if (exact) {
        int32_t *a = (int32_t *)acc;
        totals_int8((const int8_t *)F_b.buf, (const int32_t *)perms_b.buf, a, b, T, S, pairs);
        for (Py_ssize_t r = 0; r < b; r++) {
            int32_t m = 0;
            for (Py_ssize_t k = 0; k < pairs; k++) {
                int32_t v = a[r * pairs + k];
                v = v < 0 ? -v : v;
                if (v > m)
                    m = v;
            }
            out[r] = (double)m;
        }
    } else {
        double *a = (double *)acc;
        totals_float((const double *)F_b.buf, (const int32_t *)perms_b.buf, a, b, T, S, pairs);
        for (Py_ssize_t r = 0; r < b; r++) {
            double m = 0.0;
            for (Py_ssize_t k = 0; k < pairs; k++) {
                double v = fabs(a[r * pairs + k]);
                if (isnan(v)) {
                    m = v;
                    break;
                }
                if (v > m)
                    m = v;
            }
            out[r] = m;
        }
    }
    Py_END_ALLOW_THREADS
    free(acc);
    result = Py_NewRef(Py_None);
done:
    release((Py_buffer *[]){&F_b, &perms_b, &out_b}, 3);
    return result;
}

/* #{r : b[r] - a[r] > thr} and #{r : b[r] - a[r] < -thr} (a NaN difference in neither) */
VECTOR_CLONES
static void sign_counts(const double *a, const double *b, Py_ssize_t R, double thr, int64_t *gt,
                        int64_t *lt)
{
    double neg = -thr;
    int64_t g = 0, l = 0;
    for (Py_ssize_t r = 0; r < R; r++) {
        double d = b[r] - a[r];
        g += d > thr;
        l += d < neg;
    }
    *gt = g;
    *lt = l;
}

PyDoc_STRVAR(pair_sign_counts_doc,
"pair_sign_counts(X, gt, lt, S, R, threshold)\n\n"
"For the pairs i < j of the S rows of X (S x R float64, C-contiguous), in numpy.triu_indices\n"
"order: gt[k] = #{r : X[j, r] - X[i, r] > threshold}, lt[k] = #{r : X[j, r] - X[i, r] < -threshold}\n"
"(int64; a NaN difference counts in neither), as numpy compares the same differences.");

static PyObject *pair_sign_counts(PyObject *self, PyObject *args)
{
    Py_buffer X_b = {0}, gt_b = {0}, lt_b = {0};
    Py_ssize_t S, R;
    double thr;
    if (!PyArg_ParseTuple(args, "y*w*w*nnd", &X_b, &gt_b, &lt_b, &S, &R, &thr))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t pairs = S > 1 ? S * (S - 1) / 2 : 0;
    if (S < 0 || R < 0 || (R > 0 && S > PY_SSIZE_T_MAX / R / 8) || X_b.len != S * R * 8 ||
        gt_b.len != pairs * 8 || lt_b.len != pairs * 8) {
        PyErr_SetString(PyExc_ValueError, "pair_sign_counts: X must hold S x R float64 values, "
                        "gt and lt S(S-1)/2 int64 each");
        goto done;
    }
    const double *X = (const double *)X_b.buf;
    int64_t *gt = (int64_t *)gt_b.buf, *lt = (int64_t *)lt_b.buf;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i + 1 < S; i++) {
        const double *a = X + i * R;
        for (Py_ssize_t j = i + 1; j < S; j++, k++)
            sign_counts(a, X + j * R, R, thr, gt + k, lt + k);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    release((Py_buffer *[]){&X_b, &gt_b, &lt_b}, 3);
    return result;
}

/* 1/p of a position, 0 for UNRETRIEVED (INT32_MAX), as numpy's 1.0 / max(p, 1) */
static double inverse_position(int32_t p)
{
    return p == INT32_MAX ? 0.0 : 1.0 / (double)(p < 1 ? 1 : p);
}

PyDoc_STRVAR(first_differences_doc,
"first_differences(P, found, ii, jj, sgn, rr, S, T, L)\n\n"
"Lexicographic precision of the runs ii[k] against jj[k] on every topic t: the first column c\n"
"where P[ii[k], t, c] and P[jj[k], t, c] differ (c < max(found of either, 1), beyond which both\n"
"are UNRETRIEVED = INT32_MAX) gives sgn[k, t] = sign(y - x) and rr[k, t] = 1/x - 1/y (0 for\n"
"UNRETRIEVED) of its positions x, y; identical vectors give 0 and 0.0. P S x T x L int32,\n"
"found S x T int64, ii and jj n int64, sgn n x T int8, rr n x T float64, all C-contiguous.");

static PyObject *first_differences(PyObject *self, PyObject *args)
{
    Py_buffer P_b = {0}, found_b = {0}, ii_b = {0}, jj_b = {0}, sgn_b = {0}, rr_b = {0};
    Py_ssize_t S, T, L;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*nnn", &P_b, &found_b, &ii_b, &jj_b, &sgn_b, &rr_b, &S, &T, &L))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = ii_b.len / 8;
    if (S < 0 || T < 0 || L < 1 || (S > 0 && T > PY_SSIZE_T_MAX / S / L / 8) || (T > 0 && n > PY_SSIZE_T_MAX / T / 8) ||
        P_b.len != S * T * L * 4 || found_b.len != S * T * 8 || ii_b.len % 8 || jj_b.len != ii_b.len ||
        sgn_b.len != n * T || rr_b.len != n * T * 8) {
        PyErr_SetString(PyExc_ValueError, "first_differences: P must hold S x T x L int32 values (L >= 1), "
                        "found S x T int64, ii and jj n int64, sgn n x T int8 and rr n x T float64");
        goto done;
    }
    const int64_t *ii = (const int64_t *)ii_b.buf, *jj = (const int64_t *)jj_b.buf;
    for (Py_ssize_t k = 0; k < n; k++)
        if (ii[k] < 0 || ii[k] >= S || jj[k] < 0 || jj[k] >= S) {
            PyErr_SetString(PyExc_ValueError, "first_differences: a run index is outside 0..S-1");
            goto done;
        }
    const int32_t *P = (const int32_t *)P_b.buf;
    const int64_t *found = (const int64_t *)found_b.buf;
    int8_t *sgn = (int8_t *)sgn_b.buf;
    double *rr = (double *)rr_b.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < n; k++) {
        const int32_t *a = P + ii[k] * T * L, *b = P + jj[k] * T * L;
        const int64_t *fa = found + ii[k] * T, *fb = found + jj[k] * T;
        for (Py_ssize_t t = 0; t < T; t++, a += L, b += L) {
            int64_t reach = fa[t] > fb[t] ? fa[t] : fb[t];
            Py_ssize_t stop = reach < 1 ? 1 : (reach > L ? L : (Py_ssize_t)reach);
            Py_ssize_t c = 0;
            while (c < stop && a[c] == b[c])
                c++;
            if (c < stop) {
                int32_t x = a[c], y = b[c];
                *sgn++ = (int8_t)((x < y) - (x > y));
                *rr++ = inverse_position(x) - inverse_position(y);
            } else {
                *sgn++ = 0;
                *rr++ = 0.0;
            }
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    release((Py_buffer *[]){&P_b, &found_b, &ii_b, &jj_b, &sgn_b, &rr_b}, 6);
    return result;
}

/* one (run, topic) position vector of tied_pairs, sorted in numeric lexicographic order */
typedef struct {
    const int32_t *row;
    Py_ssize_t len;
} vector_ref;

static int compare_vectors(const void *pa, const void *pb)
{
    const vector_ref *a = (const vector_ref *)pa, *b = (const vector_ref *)pb;
    for (Py_ssize_t c = 0; c < a->len; c++)
        if (a->row[c] != b->row[c])
            return a->row[c] < b->row[c] ? -1 : 1;
    return 0;
}

PyDoc_STRVAR(tied_pairs_doc,
"tied_pairs(P, S, T, L, width) -> (rr_tied, lp_tied)\n\n"
"Over the topics t of the position vectors P (S x T x L int32, C-contiguous, 1 <= width <= L),\n"
"the pairs of runs with the same first position P[s, t, 0] (tied under RR) and with the same\n"
"first width positions (tied under lexicographic precision): per topic the S vectors are\n"
"sorted, and a group of c equal ones adds c (c - 1) / 2.");

static PyObject *tied_pairs(PyObject *self, PyObject *args)
{
    Py_buffer P_b = {0};
    Py_ssize_t S, T, L, width;
    if (!PyArg_ParseTuple(args, "y*nnnn", &P_b, &S, &T, &L, &width))
        return NULL;
    PyObject *result = NULL;
    if (S < 0 || T < 0 || L < 1 || width < 1 || width > L || (S > 0 && T > PY_SSIZE_T_MAX / S / L / 4) ||
        P_b.len != S * T * L * 4) {
        PyErr_SetString(PyExc_ValueError, "tied_pairs: P must hold S x T x L int32 values, 1 <= width <= L");
        goto done;
    }
    vector_ref *v = PyMem_Malloc(sizeof(vector_ref) * (S > 0 ? S : 1));
    if (v == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int32_t *P = (const int32_t *)P_b.buf;
    long long rr = 0, lp = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < T; t++) {
        for (Py_ssize_t s = 0; s < S; s++)
            v[s] = (vector_ref){P + (s * T + t) * L, width};
        qsort(v, (size_t)S, sizeof(vector_ref), compare_vectors);
        Py_ssize_t same_first = 1, same_all = 1;
        for (Py_ssize_t s = 1; s <= S; s++) {
            int first = s < S && v[s].row[0] == v[s - 1].row[0];
            int all = first && compare_vectors(&v[s], &v[s - 1]) == 0;
            if (!all) {
                lp += (long long)same_all * (same_all - 1) / 2;
                same_all = 0;
            }
            if (!first) {
                rr += (long long)same_first * (same_first - 1) / 2;
                same_first = 0;
            }
            same_all++;
            same_first++;
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(v);
    result = Py_BuildValue("(LL)", rr, lp);
done:
    PyBuffer_Release(&P_b);
    return result;
}

static PyMethodDef methods[] = {
    {"preference_null_max", preference_null_max, METH_VARARGS, preference_null_max_doc},
    {"pair_sign_counts", pair_sign_counts, METH_VARARGS, pair_sign_counts_doc},
    {"first_differences", first_differences, METH_VARARGS, first_differences_doc},
    {"tied_pairs", tied_pairs, METH_VARARGS, tied_pairs_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Compiled kernels of reeval.stats: the randomised HSD's null statistics, pairwise sign counts, "
    "lexicographic first differences and tied pairs (see _kernels.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    return PyModule_Create(&module);
}
