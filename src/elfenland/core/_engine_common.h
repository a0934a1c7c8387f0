/* What the compiled engines (games/<game>/_speedups.c) share: one copy of the code that
 * is the same for every rule set, so that a new rule set does not make another copy.
 *
 * - randomness through the state's own Python Rng, draw for draw as the pure engines
 *   draw (randbelow, draw_counts_with, draw_counts);
 * - the checked readers that keep out-of-range input from Python away from the C arrays
 *   (issue #22: read_long, read_ints; every failure is the configured ElfenlandError);
 * - the methods every Core has the same (legal_actions, legal_action_ids, apply_action,
 *   _apply_id, current_player, is_terminal, _legal_mask_into), the rng and origin
 *   attributes, and ``configure``, which takes the tables once, all or nothing;
 * - the readers of configure's dict (get_int_item, get_key, int_vector, member_offset)
 *   and of the Python types whose internals the hot path reads directly;
 * - with ENGINE_BOARD, Elfenland's map (which Elfengold plays on too): the route and
 *   town tables, configure_board, the river's costs and the caravan's payments.
 *
 * It is a header of static functions, included once by each engine right after its
 * ``Core`` type, so every engine keeps its own copy of the statics (each extension
 * module is configured apart) while the source has one.  The including file defines
 * first:
 *   S and Core        Core has ``st`` (an S with n, phase, current, rng_shared, length),
 *                     legal_valid, nlegal, legal (ids), rng, rules, origin,
 *                     origin_snapshot;
 *   P_OVER            the finished game's phase; TERMINAL_PLAYER, its "nobody";
 *   MAXP              the most players;
 *   ENGINE_LIST_MAX   the longest list field read_ints reads;
 *   ENGINE_OBSERVE    (optional) its observation writer, int f(Core *, int player,
 *                     float *out, Py_ssize_t size), for the C entry (_engine_api.h);
 * and defines after it: check_ready, ensure_legal, play and configure_tables.  The
 * Python type and module around them come from _engine_type.h, included after the
 * engine's Core_getset and Core_methods tables.
 */
#ifndef ELFENLAND_ENGINE_COMMON_H
#define ELFENLAND_ENGINE_COMMON_H

#include <Python.h>
#include <stddef.h>
#include <string.h>
#include <structmember.h>

#include "_engine_api.h"

#ifndef ENGINE_LIST_MAX
#error "define ENGINE_LIST_MAX (the longest list field) before including _engine_common.h"
#endif

/* Static functions an engine may not call (its own module decides); never a warning. */
#define ENGINE_MAYBE_UNUSED __attribute__((unused))

/* ------------------------------------------------------------------ errors without the GIL
 * The batched environment's threads play games without the GIL (issue #25): a thread
 * that calls nogil_enter(sink) has ``nogil_sink`` set, and the errors the engine's code
 * raises on that thread (PyErr_SetString, PyErr_Format, PyErr_NoMemory below this point
 * are these wrappers) are written to the sink instead of the thread's Python state,
 * which such a thread does not have; the thread holding the GIL raises them later.
 * With the GIL (nogil_sink NULL) the wrappers are the functions they wrap. */
#include <stdarg.h>
#include <stdio.h>
static __thread EngineFailure *nogil_sink;
/* The wrappers are out of the hot paths' way: errors are rare. */
#define ENGINE_COLD __attribute__((cold, noinline))

ENGINE_COLD static void nogil_fail(PyObject *type, const char *message) {
    if (nogil_sink->type) return; /* the first failure is the one raised */
    nogil_sink->type = type;
    snprintf(nogil_sink->message, sizeof nogil_sink->message, "%s", message);
}

ENGINE_COLD static void engine_err_string(PyObject *type, const char *message) {
    if (nogil_sink) nogil_fail(type, message);
    else PyErr_SetString(type, message);
}

/* Whether a PyErr_Format format uses a conversion only Python knows (%R, %S, %U, %A,
 * %V, %T, %N): such a message is kept as its format, unformatted, without the GIL. */
static int python_only_format(const char *f) {
    for (; *f; f++) {
        if (*f != '%') continue;
        f++;
        while (*f && strchr("0123456789.-+ #lhzt", *f)) f++;
        if (*f && strchr("RSUAVTN", *f)) return 1;
        if (!*f) break;
    }
    return 0;
}

ENGINE_COLD static PyObject *engine_err_format(PyObject *type, const char *format, ...) {
    va_list va;
    va_start(va, format);
    if (!nogil_sink) {
        PyErr_FormatV(type, format, va);
    } else if (!nogil_sink->type) {
        char message[sizeof nogil_sink->message];
        if (python_only_format(format)) snprintf(message, sizeof message, "%s", format);
        else vsnprintf(message, sizeof message, format, va);
        nogil_fail(type, message);
    }
    va_end(va);
    return NULL;
}

ENGINE_COLD static PyObject *engine_no_memory(void) {
    if (nogil_sink) nogil_fail(PyExc_MemoryError, "out of memory");
    else PyErr_NoMemory();
    return NULL;
}

#define PyErr_SetString(type, message) engine_err_string((type), (message))
#define PyErr_Format(type, ...) engine_err_format((type), __VA_ARGS__)
#define PyErr_NoMemory() engine_no_memory()

/* ------------------------------------------------------------------ shared tables */
static int configured;
static Py_ssize_t NACT;
static PyObject *actions_tuple; /* every Action by id */
static PyObject *action_type, *rng_type, *to_position_fn;
/* Shortcuts taken only for the exact types they were read from (else the generic call):
 * random.Random's C getrandbits, and the slots holding Rng._r and Action._id. */
static PyTypeObject *random_type;
static PyCFunction getrandbits_fn;
static Py_ssize_t rng_r_offset = -1, action_id_offset = -1;
static PyObject *error_type; /* ElfenlandError: every refusal of bad input */
static PyObject *s_getrandbits, *s_copy, *s_r, *s_id, *s_apply_slow, *s_shuffle,
    *s_randrange, *two63;

static int intern_common_names(void);

/* What the including engine defines after this header. */
static int check_ready(Core *c);
static int ensure_legal(Core *c);
static int play(Core *c, Py_ssize_t id, PyObject *action);
static PyObject *configure_tables(PyObject *d);

/* What _engine_type.h defines (the engine's tables name them before including it). */
static Core *copy_core(Core *c);
static PyObject *Core_clone(Core *c, PyObject *unused);
#ifdef ENGINE_OBSERVE
static int ENGINE_OBSERVE(Core *c, int player, float *out, Py_ssize_t size);
static PyObject *Core_observe_into(Core *c, PyObject *args);
static PyObject *Core_observation_size(Core *c, PyObject *unused);
/* ...and what the engine defines after it: the vector's length and its writer. */
static Py_ssize_t obs_size(int n);
static void observe(S *s, int player, float *v);
#endif

/* ------------------------------------------------------------------ history buffer
 * With ENGINE_HISTORY (the engine defines HistEntry, ``typedef struct Hist Hist`` and
 * Core's ``hist`` and ``hcount``): the newest actions of a history kept as entries,
 * not yet made links, so that playing an action builds no tuple.  Clones share a
 * buffer: a state owns its first ``hcount`` entries, appends in place while nobody
 * appended past them, and copies them to a buffer of its own otherwise.  An entry that
 * holds a Python object says so with ENGINE_HIST_DROP(e) / ENGINE_HIST_KEEP(e).  The
 * buffers come from the raw allocator, which needs no GIL (the batch's threads append). */
#ifdef ENGINE_HISTORY
#ifndef ENGINE_HIST_DROP
#define ENGINE_HIST_DROP(e) ((void)0)
#define ENGINE_HIST_KEEP(e) ((void)0)
#endif

struct Hist {
    Py_ssize_t refs, used, cap;
    HistEntry e[];
};

/* The buffer's entries from ``k`` on forgotten (their objects released). */
static void hist_truncate(Hist *h, Py_ssize_t k) {
    for (Py_ssize_t i = k; i < h->used; i++) ENGINE_HIST_DROP(&h->e[i]);
    h->used = k;
}

static void hist_release(Core *c) {
    if (c->hist && --c->hist->refs == 0) {
        hist_truncate(c->hist, 0);
        PyMem_RawFree(c->hist);
    }
    c->hist = NULL;
    c->hcount = 0;
}
#define ENGINE_FORGET_HISTORY hist_release

/* The slot of one more entry, for the caller to fill at once; NULL with the error. */
static HistEntry *hist_slot(Core *c) {
    Hist *h = c->hist;
    Py_ssize_t k = c->hcount;
    if (h && h->refs == 1) hist_truncate(h, k); /* entries past ours: a dead clone's */
    if (!h || h->used != k || k == h->cap) {
        Py_ssize_t cap = k < 128 ? 256 : 2 * k;
        Hist *g;
        if (h && h->refs == 1) {
            g = PyMem_RawRealloc(h, sizeof(Hist) + sizeof(HistEntry) * (size_t)cap);
            if (!g) { PyErr_NoMemory(); return NULL; }
        } else {
            g = PyMem_RawMalloc(sizeof(Hist) + sizeof(HistEntry) * (size_t)cap);
            if (!g) { PyErr_NoMemory(); return NULL; }
            g->refs = 1;
            if (k) memcpy(g->e, h->e, sizeof(HistEntry) * (size_t)k);
            for (Py_ssize_t i = 0; i < k; i++) ENGINE_HIST_KEEP(&g->e[i]);
            if (h) h->refs--; /* shared, so not the last reference */
        }
        g->cap = cap;
        c->hist = h = g;
    }
    h->used = c->hcount = k + 1;
    return &h->e[k];
}

/* The pending entries become links (player, action, fact), as play made them before
 * (the engine reads an entry with ENGINE_HIST_PLAYER(e), ENGINE_HIST_ID(e) and
 * ENGINE_HIST_FACT(e), the fact as a new reference): 0, or -1 with the error and the
 * history unchanged. */
static int hist_flush(Core *c) {
    if (!c->hcount) return 0;
    PyObject *chain = c->chain ? Py_NewRef(c->chain) : Py_NewRef(Py_None);
    const HistEntry *e = c->hist->e;
    for (Py_ssize_t i = 0; i < c->hcount; i++) {
        PyObject *pl = PyLong_FromLong(ENGINE_HIST_PLAYER(&e[i]));
        PyObject *fa = ENGINE_HIST_FACT(&e[i]);
        PyObject *action = PyTuple_GET_ITEM(actions_tuple, ENGINE_HIST_ID(&e[i]));
        PyObject *link = pl && fa ? PyTuple_Pack(4, chain, pl, action, fa) : NULL;
        Py_XDECREF(pl);
        Py_XDECREF(fa);
        Py_DECREF(chain);
        if (!link) return -1;
        /* A link holds ints, an action and older links: never a cycle, so the
         * collector need not look at it. */
        PyObject_GC_UnTrack(link);
        chain = link;
    }
    Py_XSETREF(c->chain, chain); /* hcount > 0: a link */
    hist_release(c);
    return 0;
}
#define ENGINE_FLUSH_HISTORY hist_flush
#endif /* ENGINE_HISTORY */

/* Bad input: the typed error (ElfenlandError, a ValueError) with a message. */
static PyObject *err_type(void) { return error_type ? error_type : PyExc_ValueError; }

/* Whether the state was made by __init__ (or from_state...): rules and an Rng. */
static int check_set_up(Core *c) {
    if (!c->rng || !c->rules) {
        PyErr_SetString(err_type(), "this state was not set up: make it with the class "
                        "itself, from_state, load_position or deserialize");
        return -1;
    }
    return 0;
}

static inline int sum(const int *v, int len) {
    int t = 0;
    for (int i = 0; i < len; i++) t += v[i];
    return t;
}

/* ------------------------------------------------------------------ randomness */
/* random.Random.randrange(n) for n > 0, as CPython's _randbelow_with_getrandbits. */
static long randbelow(PyObject *r, long n) {
    int k = 0;
    for (long m = n; m; m >>= 1) k++;
    PyObject *kk = PyLong_FromLong(k);
    if (!kk) return -1;
    int direct = getrandbits_fn && Py_TYPE(r) == random_type;
    for (;;) {
        PyObject *v = direct ? getrandbits_fn(r, kk) : PyObject_CallMethodOneArg(r, s_getrandbits, kk);
        if (!v) { Py_DECREF(kk); return -1; }
        long x = PyLong_AsLong(v);
        Py_DECREF(v);
        if (x == -1 && PyErr_Occurred()) { Py_DECREF(kk); return -1; }
        if (x < n) { Py_DECREF(kk); return x; }
    }
}

/* random.Random's generator without Python: the object as CPython's _randommodule.c
 * lays it out (a Mersenne Twister of 624 words and the index of the next), and its
 * genrand_uint32, word for word.  Used only by a thread without the GIL, and only once
 * api_nogil_supported has seen it give what getrandbits gives (``native_mt`` 1). */
#define MT_N 624
#define MT_M 397
typedef struct {
    PyObject_HEAD
    int index;
    uint32_t state[MT_N];
} MTObject;
static int native_mt = -1; /* -1 not checked yet, 0 unusable here, 1 checked */

static uint32_t mt_next(MTObject *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t *mt = r->state, y;
    if (r->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        r->index = 0;
    }
    y = mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* randbelow for 0 < n < 2**31 on the generator itself: getrandbits(k) for k <= 32 is
 * the top k bits of one word. */
static long randbelow_native(PyObject *r, long n) {
    int k = 0;
    for (long m = n; m; m >>= 1) k++;
    for (;;) {
        long x = (long)(mt_next((MTObject *)r) >> (32 - k));
        if (x < n) return x;
    }
}

/* Rng.draw_from_counts on the Rng object ``rng``. */
static int draw_counts_with(PyObject *rng, int *counts, int kinds) {
    int total = sum(counts, kinds);
    if (total <= 0) {
        PyErr_SetString(PyExc_ValueError, "draw from an empty pile");
        return -1;
    }
    PyObject *r;
    if (__builtin_expect(nogil_sink != NULL, 0)) {
        /* api_nogil_may_play saw the Rng's type and its random.Random: read, not held */
        long k = randbelow_native(*(PyObject **)((char *)rng + rng_r_offset), total);
        for (int kind = 0; kind < kinds; kind++) {
            if (k < counts[kind]) { counts[kind]--; return kind; }
            k -= counts[kind];
        }
        PyErr_SetString(PyExc_AssertionError, "unreachable");
        return -1;
    }
    if (rng_r_offset >= 0 && Py_TYPE(rng) == (PyTypeObject *)rng_type) {
        r = *(PyObject **)((char *)rng + rng_r_offset);
        if (!r) { PyErr_SetString(PyExc_AttributeError, "_r"); return -1; }
        Py_INCREF(r);
    } else {
        r = PyObject_GetAttr(rng, s_r);
        if (!r) return -1;
    }
    long k = randbelow(r, total);
    Py_DECREF(r);
    if (k < 0) return -1;
    for (int kind = 0; kind < kinds; kind++) {
        if (k < counts[kind]) { counts[kind]--; return kind; }
        k -= counts[kind];
    }
    PyErr_SetString(PyExc_AssertionError, "unreachable");
    return -1;
}

/* The state's own Rng, copied first if a clone shares it (as the pure states' _random). */
static int draw_counts(Core *c, int *counts, int kinds) {
    if (!c->rng) return check_ready(c);
    if (c->st.rng_shared && nogil_sink) { /* api_nogil_may_play let no such state through */
        PyErr_SetString(PyExc_RuntimeError, "a shared Rng is copied with the GIL");
        return -1;
    }
    if (c->st.rng_shared) {
        PyObject *fresh = PyObject_CallMethodNoArgs(c->rng, s_copy);
        if (!fresh) return -1;
        Py_SETREF(c->rng, fresh);
        c->st.rng_shared = 0;
    }
    return draw_counts_with(c->rng, counts, kinds);
}

/* ------------------------------------------------------------------ checked input */
/* One hidden count table dealt again: as many items as ``held`` counts (``kinds`` kinds)
 * drawn one by one from ``pool`` into ``out`` (cleared first), as the pure engine's
 * draw_counts does; 0, or -1 with the error. */
ENGINE_MAYBE_UNUSED static int redeal_counts(PyObject *rng, int *out, const int *held,
                                             int *pool, int kinds) {
    int size = sum(held, kinds);
    memset(out, 0, sizeof(int) * (size_t)kinds);
    for (int i = 0; i < size; i++) {
        int k = draw_counts_with(rng, pool, kinds);
        if (k < 0) return -1;
        out[k]++;
    }
    return 0;
}

static PyObject *int_list(const int *v, int len) {
    PyObject *l = PyList_New(len);
    if (!l) return NULL;
    for (int i = 0; i < len; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (!x) { Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

/* ``v`` as a C long in lo..hi, else the typed error naming the field and the range. */
static int read_long(PyObject *v, long lo, long hi, const char *what, long *out) {
    if (!PyLong_Check(v)) {
        PyErr_Format(err_type(), "%s: an integer, not %.80s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    int overflow;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow || x < lo || x > hi) {
        PyErr_Format(err_type(), "%s: %ld to %ld, not %R", what, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

/* A list or tuple of ``len`` ints in lo..hi into ``out``, which is written only if all
 * of them are good. */
static int read_ints(PyObject *v, int *out, int len, const char *what, long lo, long hi) {
    int tmp[ENGINE_LIST_MAX];
    if (!PyList_Check(v) && !PyTuple_Check(v)) {
        PyErr_Format(err_type(), "%s: a list, not %.80s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    if (len > ENGINE_LIST_MAX || PySequence_Fast_GET_SIZE(v) != len) {
        PyErr_Format(err_type(), "%s: expected %d items", what, len);
        return -1;
    }
    for (int i = 0; i < len; i++) {
        long x;
        if (read_long(PySequence_Fast_GET_ITEM(v, i), lo, hi, what, &x) < 0) return -1;
        tmp[i] = (int)x;
    }
    memcpy(out, tmp, sizeof(int) * (size_t)len);
    return 0;
}

/* ``rows`` lists of ``len`` ints each (one per player), all checked before any is kept. */
ENGINE_MAYBE_UNUSED static int read_matrix(PyObject *v, int *out, int rows, int len,
                                           const char *what, long lo, long hi) {
    int tmp[MAXP][ENGINE_LIST_MAX];
    if (!PyList_Check(v) && !PyTuple_Check(v)) {
        PyErr_Format(err_type(), "%s: a list, not %.80s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    if (rows > MAXP || len > ENGINE_LIST_MAX || PySequence_Fast_GET_SIZE(v) != rows) {
        PyErr_Format(err_type(), "%s: expected %d rows, one per player", what, rows);
        return -1;
    }
    for (int i = 0; i < rows; i++)
        if (read_ints(PySequence_Fast_GET_ITEM(v, i), tmp[i], len, what, lo, hi) < 0) return -1;
    for (int i = 0; i < rows; i++) memcpy(out + i * len, tmp[i], sizeof(int) * (size_t)len);
    return 0;
}

/* A rule option as an int in lo..hi (the ranges of the game's options.py). */
ENGINE_MAYBE_UNUSED static int read_rule_int(PyObject *rules, const char *name, int *out,
                                             long lo, long hi) {
    PyObject *v = PyObject_GetAttrString(rules, name);
    if (!v) return -1;
    long x;
    int rc = read_long(v, lo, hi, name, &x);
    Py_DECREF(v);
    if (rc < 0) return -1;
    *out = (int)x;
    return 0;
}

/* Fresh lists out of the arrays: a reader's writes never reach the state. */
ENGINE_MAYBE_UNUSED static PyObject *bool_list(const int *v, int len) {
    PyObject *l = PyList_New(len);
    if (!l) return NULL;
    for (int i = 0; i < len; i++) PyList_SET_ITEM(l, i, Py_NewRef(v[i] ? Py_True : Py_False));
    return l;
}

ENGINE_MAYBE_UNUSED static PyObject *matrix(const int *v, int rows, int stride, int len) {
    PyObject *l = PyList_New(rows);
    if (!l) return NULL;
    for (int i = 0; i < rows; i++) {
        PyObject *row = int_list(v + i * stride, len);
        if (!row) { Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, i, row);
    }
    return l;
}

ENGINE_MAYBE_UNUSED static PyObject *long_list(const long *v, int len) {
    PyObject *l = PyList_New(len);
    if (!l) return NULL;
    for (int i = 0; i < len; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (!x) { Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

/* A list of ``len`` longs in lo..hi, one per player, all checked before any is kept. */
ENGINE_MAYBE_UNUSED static int read_longs(PyObject *v, long *out, int len, const char *what,
                                          long lo, long hi) {
    long tmp[MAXP];
    if (!PyList_Check(v) && !PyTuple_Check(v)) {
        PyErr_Format(err_type(), "%s: a list, not %.80s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    if (len > MAXP || PySequence_Fast_GET_SIZE(v) != len) {
        PyErr_Format(err_type(), "%s: one per player", what);
        return -1;
    }
    for (int i = 0; i < len; i++)
        if (read_long(PySequence_Fast_GET_ITEM(v, i), lo, hi, what, &tmp[i]) < 0) return -1;
    memcpy(out, tmp, sizeof(long) * (size_t)len);
    return 0;
}

/* ------------------------------------------------------------------ fields
 * The state's attributes as a table (the engine's ``fields``, indexed by its F_ numbers):
 * each field's name, kind, place in S, length and bounds, read and written here the
 * same way for every engine; a field whose checks are its own (FK_OWN) goes to the
 * engine's get_own_field / set_own_field. */
enum {
    FK_OWN,    /* the engine's own code */
    FK_INT,    /* an int in lo..hi */
    FK_BOOL,   /* an int 0 or 1, read back as a bool */
    FK_LONG,   /* a long in lo..hi */
    FK_SSIZE,  /* a Py_ssize_t in lo..hi */
    FK_INTS,   /* ``len`` ints in lo..hi */
    FK_BOOLS,  /* ``len`` ints 0 or 1, read back as bools */
    FK_LONGS,  /* ``len`` longs in lo..hi */
    FK_MATRIX, /* ``len`` rows of ``cols`` ints in lo..hi */
};

/* Lengths and bounds that depend on the state or the board, resolved by field_value. */
#define FV_N (-1000000001L)     /* the player count */
#define FV_LAST (-1000000002L)  /* the last seat, n - 1 */
#define FV_SEATS (-1000000003L) /* any set of seats as bits, (1 << n) - 1 */
#define FV_NR (-1000000004L)    /* the routes (with ENGINE_BOARD) */
#define FV_NT (-1000000005L)    /* the towns */
#define FV_LAST_TOWN (-1000000006L)
#define FV_TOWNS (-1000000007L) /* any set of towns as bits, (1 << NT) - 1 */

typedef struct {
    const char *name; /* the attribute, also the name its errors give */
    int kind;
    size_t offset; /* in S */
    long len, cols, lo, hi;
} FieldSpec;

/* A field of S: FLD(kind, name, member, len, cols, lo, hi); OWN_FIELD(name). */
#define FLD(KIND, NAME, MEMBER, LEN, COLS, LO, HI) \
    {#NAME, KIND, offsetof(S, MEMBER), LEN, COLS, LO, HI}
#define SCALAR(KIND, NAME, LO, HI) FLD(KIND, NAME, NAME, 0, 0, LO, HI)
#define OWN_FIELD(NAME) {NAME, FK_OWN, 0, 0, 0, 0, 0}

#ifdef ENGINE_BOARD
static int NR, NT; /* the board's sizes (below) */
#endif

static long field_value(const S *s, long v) {
    switch (v) {
    case FV_N: return s->n;
    case FV_LAST: return s->n - 1;
    case FV_SEATS: return (1L << s->n) - 1;
#ifdef ENGINE_BOARD
    case FV_NR: return NR;
    case FV_NT: return NT;
    case FV_LAST_TOWN: return NT - 1;
    case FV_TOWNS: return (1L << NT) - 1;
#endif
    }
    return v;
}

/* A fresh value each time: a reader's writes never reach the state. */
static PyObject *field_get(S *s, const FieldSpec *f) {
    char *at = (char *)s + f->offset;
    int len = (int)field_value(s, f->len), cols = (int)f->cols;
    switch (f->kind) {
    case FK_INT: return PyLong_FromLong(*(int *)at);
    case FK_BOOL: return PyBool_FromLong(*(int *)at);
    case FK_LONG: return PyLong_FromLong(*(long *)at);
    case FK_SSIZE: return PyLong_FromSsize_t(*(Py_ssize_t *)at);
    case FK_INTS: return int_list((int *)at, len);
    case FK_BOOLS: return bool_list((int *)at, len);
    case FK_LONGS: return long_list((long *)at, len);
    case FK_MATRIX: return matrix((int *)at, len, cols, cols);
    }
    PyErr_SetString(PyExc_AttributeError, "no such field");
    return NULL;
}

/* ``v`` checked against the field's kind and bounds, then written (nothing on error). */
static int field_set(S *s, const FieldSpec *f, PyObject *v) {
    char *at = (char *)s + f->offset;
    int len = (int)field_value(s, f->len), cols = (int)f->cols;
    long lo = field_value(s, f->lo), hi = field_value(s, f->hi), x;
    switch (f->kind) {
    case FK_INT:
    case FK_BOOL:
        if (read_long(v, lo, hi, f->name, &x) < 0) return -1;
        *(int *)at = (int)x;
        return 0;
    case FK_LONG:
        if (read_long(v, lo, hi, f->name, &x) < 0) return -1;
        *(long *)at = x;
        return 0;
    case FK_SSIZE:
        if (read_long(v, lo, hi, f->name, &x) < 0) return -1;
        *(Py_ssize_t *)at = x;
        return 0;
    case FK_INTS:
    case FK_BOOLS: return read_ints(v, (int *)at, len, f->name, lo, hi);
    case FK_LONGS: return read_longs(v, (long *)at, len, f->name, lo, hi);
    case FK_MATRIX: return read_matrix(v, (int *)at, len, cols, f->name, lo, hi);
    }
    PyErr_SetString(PyExc_AttributeError, "no such field");
    return -1;
}

/* ``result`` (the winners' seats, or None while the game runs), which every engine
 * has: S's has_result, nresult and result. */
ENGINE_MAYBE_UNUSED static PyObject *get_result(S *s) {
    if (!s->has_result) Py_RETURN_NONE;
    return int_list(s->result, s->nresult);
}

ENGINE_MAYBE_UNUSED static int set_result(S *s, PyObject *v) {
    if (v == Py_None) {
        s->has_result = 0;
        s->nresult = 0;
        return 0;
    }
    if (!PyList_Check(v) && !PyTuple_Check(v)) {
        PyErr_SetString(err_type(), "result: a list of seats or None");
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(v);
    if (len < 1 || len > s->n) {
        PyErr_SetString(err_type(), "result: one to n seats");
        return -1;
    }
    if (read_ints(v, s->result, (int)len, "result", 0, s->n - 1) < 0) return -1;
    s->nresult = (int)len;
    s->has_result = 1;
    return 0;
}

/* ------------------------------------------------------------------ methods */
static int is_legal(Core *c, Py_ssize_t id) {
    for (int i = 0; i < c->nlegal; i++) if (c->legal[i] == id) return 1;
    return 0;
}

static PyObject *Core_legal_actions(Core *c, PyObject *Py_UNUSED(unused)) {
    if (ensure_legal(c) < 0) return NULL;
    PyObject *list = PyList_New(c->nlegal);
    if (!list) return NULL;
    for (int i = 0; i < c->nlegal; i++)
        PyList_SET_ITEM(list, i, Py_NewRef(PyTuple_GET_ITEM(actions_tuple, c->legal[i])));
    return list;
}

static PyObject *Core_legal_action_ids(Core *c, PyObject *Py_UNUSED(unused)) {
    if (ensure_legal(c) < 0) return NULL;
    PyObject *list = PyList_New(c->nlegal);
    if (!list) return NULL;
    for (int i = 0; i < c->nlegal; i++) {
        PyObject *x = PyLong_FromLong(c->legal[i]);
        if (!x) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i, x);
    }
    return list;
}

static PyObject *Core_apply_action(Core *c, PyObject *action) {
    /* An action id (as OpenSpiel-style callers give): the same as its action object. */
    if (PyLong_CheckExact(action) && c->st.phase != P_OVER) {
        Py_ssize_t id = PyLong_AsSsize_t(action);
        if (id == -1 && PyErr_Occurred()) PyErr_Clear();
        else if (id >= 0 && id < NACT) {
            if (ensure_legal(c) < 0) return NULL;
            if (is_legal(c, id)) {
                if (play(c, id, PyTuple_GET_ITEM(actions_tuple, id)) < 0) return NULL;
                Py_RETURN_NONE;
            }
        }
    }
    if (Py_TYPE(action) == (PyTypeObject *)action_type && c->st.phase != P_OVER) {
        PyObject *idobj = action_id_offset >= 0
            ? Py_XNewRef(*(PyObject **)((char *)action + action_id_offset))
            : PyObject_GetAttr(action, s_id);
        if (!idobj) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_AttributeError, "_id");
            return NULL;
        }
        Py_ssize_t id = PyLong_AsSsize_t(idobj);
        Py_DECREF(idobj);
        if (id == -1 && PyErr_Occurred()) return NULL;
        if (id >= 0 && id < NACT && PyTuple_GET_ITEM(actions_tuple, id) == action) {
            if (ensure_legal(c) < 0) return NULL;
            if (is_legal(c, id)) {
                if (play(c, id, action) < 0) return NULL;
                Py_RETURN_NONE;
            }
        }
    }
    /* Text, ids, hand-built actions, illegal ones and a finished game: the Python path
     * parses and raises the same errors as the pure engine. */
    return PyObject_CallMethodOneArg((PyObject *)c, s_apply_slow, action);
}

/* Play the action with this id if legal, else return False (fast.py raises). */
static PyObject *Core_apply_id(Core *c, PyObject *arg) {
    Py_ssize_t id = PyLong_AsSsize_t(arg);
    if (id == -1 && PyErr_Occurred()) return NULL;
    if (c->st.phase == P_OVER || id < 0 || id >= NACT) Py_RETURN_FALSE;
    if (ensure_legal(c) < 0) return NULL;
    if (!is_legal(c, id)) Py_RETURN_FALSE;
    if (play(c, id, PyTuple_GET_ITEM(actions_tuple, id)) < 0) return NULL;
    Py_RETURN_TRUE;
}

static PyObject *Core_current_player(Core *c, PyObject *Py_UNUSED(unused)) {
    return PyLong_FromLong(c->st.phase == P_OVER ? TERMINAL_PLAYER : c->st.current);
}

static PyObject *Core_is_terminal(Core *c, PyObject *Py_UNUSED(unused)) {
    return PyBool_FromLong(c->st.phase == P_OVER);
}

/* ------------------------------------------------------------------ the C entry
 * The methods above on C types, for the batched environment (_engine_api.h). */
static int api_legal_ids(PyObject *state, int32_t *out, int cap) {
    Core *c = (Core *)state;
    if (ensure_legal(c) < 0) return -1;
    if (c->nlegal > cap) {
        PyErr_Format(PyExc_RuntimeError, "%d legal actions, more than %d", c->nlegal, cap);
        return -1;
    }
    for (int i = 0; i < c->nlegal; i++) out[i] = (int32_t)c->legal[i];
    return c->nlegal;
}

static int api_apply_id(PyObject *state, Py_ssize_t id) {
    Core *c = (Core *)state;
    if (c->st.phase == P_OVER || id < 0 || id >= NACT) return 0;
    if (ensure_legal(c) < 0) return -1;
    if (!is_legal(c, id)) return 0;
    if (play(c, id, PyTuple_GET_ITEM(actions_tuple, id)) < 0) return -1;
    return 1;
}

static int api_current_player(PyObject *state) {
    Core *c = (Core *)state;
    return c->st.phase == P_OVER ? TERMINAL_PLAYER : c->st.current;
}

static int api_is_terminal(PyObject *state) { return ((Core *)state)->st.phase == P_OVER; }

static void api_prefetch(PyObject *state) {
    const Core *c = (const Core *)state;
    for (size_t b = 0; b < sizeof(Core); b += 64) __builtin_prefetch((const char *)c + b, 1, 3);
    if (c->legal_valid)
        for (int i = 0; i < c->nlegal; i += 16) __builtin_prefetch(c->legal + i, 0, 3);
}

#ifdef ENGINE_OBSERVE
static int api_observe(PyObject *state, int player, float *out, Py_ssize_t size) {
    return ENGINE_OBSERVE((Core *)state, player, out, size);
}
#endif

/* With the GIL, once: the generator read in C (MTObject) must give, word for word, what
 * random.Random's getrandbits gives, across a twist of its state; else the batch's
 * threads are not used with this engine (they would need Python for every draw). */
static int api_nogil_supported(void) {
    if (native_mt >= 0) return native_mt;
    if (!random_type || !getrandbits_fn || rng_r_offset < 0 || !rng_type
            || random_type->tp_basicsize < (Py_ssize_t)sizeof(MTObject))
        return native_mt = 0;
    PyObject *seed = PyLong_FromLong(20261126), *bits = PyLong_FromLong(32);
    PyObject *a = seed ? PyObject_CallOneArg((PyObject *)random_type, seed) : NULL;
    PyObject *b = seed ? PyObject_CallOneArg((PyObject *)random_type, seed) : NULL;
    int same = a && b && bits && Py_IS_TYPE(a, random_type) && Py_IS_TYPE(b, random_type);
    for (int i = 0; same && i < 2 * MT_N + 5; i++) {
        PyObject *v = getrandbits_fn(a, bits);
        unsigned long x = v ? PyLong_AsUnsignedLong(v) : 0;
        Py_XDECREF(v);
        if (PyErr_Occurred()) break;
        same = x == mt_next((MTObject *)b);
    }
    Py_XDECREF(seed);
    Py_XDECREF(bits);
    Py_XDECREF(a);
    Py_XDECREF(b);
    if (PyErr_Occurred()) return -1;
    return native_mt = same;
}

/* Without the GIL: whether game ``state`` can play ``id`` on a thread without it (see
 * _engine_api.h).  Reads only C fields and types. */
static int api_nogil_may_play(PyObject *state, Py_ssize_t id) {
#ifdef ENGINE_HISTORY
    const Core *c = (const Core *)state;
    if (native_mt != 1 || !c->rng || !c->rules || c->st.rng_shared || !c->legal_valid
            || Py_TYPE(c->rng) != (PyTypeObject *)rng_type || id < 0 || id >= NACT)
        return 0;
    PyObject *r = *(PyObject **)((char *)c->rng + rng_r_offset);
    if (!r || Py_TYPE(r) != random_type) return 0;
    if (c->hist && (c->hist->refs != 1 || c->hist->used != c->hcount)) return 0;
#ifdef ENGINE_FACT_NEEDS_PYTHON
    if (ENGINE_FACT_NEEDS_PYTHON(id)) return 0;
#endif
    return 1;
#else
    (void)state; (void)id;
    return 0; /* its history is Python links, made at every action */
#endif
}

static const void *api_raw(PyObject *state) { return &((const Core *)state)->st; }

static void api_nogil_enter(EngineFailure *sink) {
    if (sink) sink->type = NULL;
    nogil_sink = sink;
}

/* ------------------------------------------------------------------ resampling */
/* An engine's own Rng maker (Elfenland's builds it without Python frames) and its own
 * history store, if it has them. */
#ifndef ENGINE_NEW_RNG
#define ENGINE_NEW_RNG(seed) PyObject_CallOneArg(rng_type, (seed))
#endif
#ifndef ENGINE_FORGET_HISTORY
#define ENGINE_FORGET_HISTORY(d) ((void)0)
#endif

/* A resample's start: its arguments (player, rng) checked, and a copy of the state to
 * deal again; NULL with the error. */
static Core *resample_begin(Core *c, PyObject *args, int *player, PyObject **rng) {
    if (!PyArg_ParseTuple(args, "iO", player, rng)) return NULL;
    if (check_ready(c) < 0) return NULL;
    if (*player < 0 || *player >= c->st.n) {
        PyErr_Format(err_type(), "no player %d", *player);
        return NULL;
    }
    return copy_core(c);
}

/* A resample's end, the hidden parts dealt again: a fresh Rng seeded from ``rng``, no
 * history, and the origin (the position now) kept as a snapshot and written out only if
 * someone asks for it.  The copy, or NULL with it released. */
static PyObject *resample_finish(Core *d, PyObject *rng) {
    PyObject *seed = PyObject_CallMethodOneArg(rng, s_randrange, two63);
    PyObject *fresh = seed ? ENGINE_NEW_RNG(seed) : NULL;
    Py_XDECREF(seed);
    if (!fresh) { Py_DECREF(d); return NULL; }
    Py_XSETREF(d->rng, fresh);
    d->st.rng_shared = 0;
    Py_CLEAR(d->chain);
    ENGINE_FORGET_HISTORY(d);
    d->st.length = 0;
    Py_CLEAR(d->origin);
    Py_CLEAR(d->origin_snapshot);
    d->legal_valid = 0;
    Core *snap = copy_core(d);
    if (!snap) { Py_DECREF(d); return NULL; }
    d->origin_snapshot = (PyObject *)snap;
    return (PyObject *)d;
}

/* ------------------------------------------------------------------ attributes */
static PyObject *get_origin(Core *c, void *Py_UNUSED(u)) {
    if (c->origin_snapshot) {
        PyObject *doc = PyObject_CallOneArg(to_position_fn, c->origin_snapshot);
        if (!doc) return NULL;
        Py_XSETREF(c->origin, doc);
        Py_CLEAR(c->origin_snapshot);
    }
    return Py_NewRef(c->origin ? c->origin : Py_None);
}

static int set_origin(Core *c, PyObject *v, void *Py_UNUSED(u)) {
    if (v == Py_None) v = NULL;
    Py_XINCREF(v);
    Py_XSETREF(c->origin, v);
    Py_CLEAR(c->origin_snapshot);
    return 0;
}

static PyObject *get_rng(Core *c, void *Py_UNUSED(u)) { return Py_NewRef(c->rng ? c->rng : Py_None); }

static int set_rng(Core *c, PyObject *v, void *Py_UNUSED(u)) {
    if (!v) { PyErr_SetString(PyExc_AttributeError, "rng cannot be deleted"); return -1; }
    Py_INCREF(v);
    Py_XSETREF(c->rng, v);
    c->st.rng_shared = 0;
    return 0;
}

static PyObject *get_rules(Core *c, void *Py_UNUSED(u)) { return Py_NewRef(c->rules ? c->rules : Py_None); }

/* An object attribute kept as it is given (None as NULL where NONE_IS_NULL). */
#define OBJ_SLOT(NAME, NONE_IS_NULL)                                            \
    static PyObject *get_##NAME(Core *c, void *Py_UNUSED(u)) {                  \
        return Py_NewRef(c->NAME ? c->NAME : Py_None);                          \
    }                                                                           \
    static int set_##NAME(Core *c, PyObject *v, void *Py_UNUSED(u)) {           \
        if (NONE_IS_NULL && v == Py_None) v = NULL;                             \
        Py_XINCREF(v);                                                          \
        Py_XSETREF(c->NAME, v);                                                 \
        return 0;                                                               \
    }

/* The pure engine's cache of legal actions (``_legal``): none to read, and writing it
 * (as the pure code does after changing a field) makes the C list be built again. */
static PyObject *get_none(Core *Py_UNUSED(c), void *Py_UNUSED(u)) { Py_RETURN_NONE; }

static int set_invalidate(Core *c, PyObject *Py_UNUSED(v), void *Py_UNUSED(u)) {
    c->legal_valid = 0;
    return 0;
}

OBJ_SLOT(seed, 0)
#ifdef ENGINE_BOARD
OBJ_SLOT(board, 0)
#endif

/* The Python objects every Core holds, for its traverse and clear (an engine adds its
 * own). */
#define ENGINE_VISIT_OBJECTS(c)                                                 \
    do {                                                                        \
        Py_VISIT((c)->rules);                                                   \
        Py_VISIT((c)->seed);                                                    \
        Py_VISIT((c)->origin);                                                  \
        Py_VISIT((c)->rng);                                                     \
        Py_VISIT((c)->chain);                                                   \
        Py_VISIT((c)->origin_snapshot);                                         \
    } while (0)
#define ENGINE_CLEAR_OBJECTS(c)                                                 \
    do {                                                                        \
        Py_CLEAR((c)->rules);                                                   \
        Py_CLEAR((c)->seed);                                                    \
        Py_CLEAR((c)->origin);                                                  \
        Py_CLEAR((c)->rng);                                                     \
        Py_CLEAR((c)->chain);                                                   \
        Py_CLEAR((c)->origin_snapshot);                                         \
    } while (0)

/* The method table's entries every Core has (an engine adds its own after them). */
#define ENGINE_COMMON_METHODS                                                               \
    {"legal_actions", (PyCFunction)Core_legal_actions, METH_NOARGS, NULL},                  \
    {"legal_action_ids", (PyCFunction)Core_legal_action_ids, METH_NOARGS, NULL},            \
    {"apply_action", (PyCFunction)Core_apply_action, METH_O, NULL},                         \
    {"_apply_id", (PyCFunction)Core_apply_id, METH_O, NULL},                                \
    {"current_player", (PyCFunction)Core_current_player, METH_NOARGS, NULL},                \
    {"is_terminal", (PyCFunction)Core_is_terminal, METH_NOARGS, NULL},                      \
    {"clone", (PyCFunction)Core_clone, METH_NOARGS, NULL},                                  \
    {"_legal_mask_into", (PyCFunction)Core_legal_mask_into, METH_O, NULL}

/* The observation methods' entries (with ENGINE_OBSERVE; nothing without). */
#ifdef ENGINE_OBSERVE
#define ENGINE_OBSERVE_METHODS                                                              \
    {"_observe_into", (PyCFunction)Core_observe_into, METH_VARARGS, NULL},                  \
    {"_observation_size", (PyCFunction)Core_observation_size, METH_NOARGS, NULL},
#else
#define ENGINE_OBSERVE_METHODS
#endif

/* ------------------------------------------------------------------ configure */
static int get_int_item(PyObject *seq, Py_ssize_t i, int *out) {
    PyObject *v = PySequence_GetItem(seq, i);
    if (!v) return -1;
    long x = v == Py_None ? -1 : PyLong_AsLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}

static PyObject *get_key(PyObject *d, const char *key) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) PyErr_Format(PyExc_KeyError, "configure: missing %s", key);
    return v;
}

static int int_vector(PyObject *d, const char *key, int *out, int len) {
    PyObject *v = get_key(d, key);
    if (!v) return -1;
    if (PySequence_Length(v) != len) {
        PyErr_Format(PyExc_ValueError, "configure: %s has the wrong length", key);
        return -1;
    }
    for (int i = 0; i < len; i++) if (get_int_item(v, i, &out[i]) < 0) return -1;
    return 0;
}

/* The offset of a __slots__ member, or -1 (then attributes are looked up by name). */
static Py_ssize_t member_offset(PyObject *type, const char *name) {
    PyObject *descr = PyObject_GetAttrString(type, name);
    if (!descr) { PyErr_Clear(); return -1; }
    Py_ssize_t off = -1;
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
        if (m->type == T_OBJECT_EX || m->type == T_OBJECT) off = m->offset;
    }
    Py_DECREF(descr);
    return off;
}

/* Every phase member, in the engine's order (``phases`` of configure's dict). */
static int configure_members(PyObject *d, const char *key, PyObject **members, int count) {
    PyObject *v = get_key(d, key);
    if (!v) return -1;
    for (int i = 0; i < count; i++) {
        PyObject *m = PySequence_GetItem(v, i);
        if (!m) return -1;
        Py_XSETREF(members[i], m);
    }
    return 0;
}

/* The Python types the hot path knows: Action (its ``_id`` slot), Rng (its ``_r`` slot),
 * random.Random (its C getrandbits) and the to_position function. */
static int configure_types(PyObject *d) {
    PyObject *v;
    PyObject **slots[] = {&action_type, &rng_type, &to_position_fn};
    const char *names[] = {"action_type", "rng_type", "to_position"};
    for (int i = 0; i < 3; i++) {
        if (!(v = get_key(d, names[i]))) return -1;
        Py_INCREF(v);
        Py_XSETREF(*slots[i], v);
    }
    rng_r_offset = member_offset(rng_type, "_r");
    action_id_offset = member_offset(action_type, "_id");
    if (PyErr_Occurred()) return -1;
    if (!(v = get_key(d, "random_type"))) return -1;
    random_type = NULL;
    getrandbits_fn = NULL;
    if (PyType_Check(v)) {
        PyObject *descr = PyObject_GetAttrString(v, "getrandbits");
        if (!descr) return -1;
        if (Py_IS_TYPE(descr, &PyMethodDescr_Type)) {
            PyMethodDef *ml = ((PyMethodDescrObject *)descr)->d_method;
            if ((ml->ml_flags & (METH_VARARGS | METH_KEYWORDS | METH_NOARGS | METH_FASTCALL))
                    == 0 && (ml->ml_flags & METH_O)) {
                getrandbits_fn = ml->ml_meth;
                random_type = (PyTypeObject *)v;
                Py_INCREF(v);
            }
        }
        Py_DECREF(descr);
    }
    return 0;
}

/* configure(tables): once, all or nothing.  A second call is refused before it changes
 * anything; a first call that fails leaves the module unconfigured, so that no state can
 * be made from half-read tables. */
static PyObject *configure(PyObject *Py_UNUSED(mod), PyObject *d) {
    if (configured) {
        PyErr_SetString(err_type(), "the compiled engine is configured once, by fast.py");
        return NULL;
    }
    if (!PyDict_Check(d)) { PyErr_SetString(PyExc_TypeError, "a dict"); return NULL; }
    PyObject *e = PyDict_GetItemString(d, "error_type");
    if (!e || !PyType_Check(e) || !PyType_IsSubtype((PyTypeObject *)e,
                                                     (PyTypeObject *)PyExc_ValueError)) {
        PyErr_SetString(PyExc_TypeError, "configure: error_type, a ValueError subclass");
        return NULL;
    }
    Py_XSETREF(error_type, Py_NewRef(e));
    PyObject *ok = configure_tables(d);
    if (ok) configured = 1;
    return ok;
}

/* Core's methods again, as methods of the subclass ``cls`` (the Fast...State).  A method
 * of Core called on a subclass's instance checks the type the slow way on every call,
 * and the interpreter's specialised call of a C method (3.11+) only takes one whose type
 * is the instance's own. */
ENGINE_MAYBE_UNUSED static PyObject *own_methods_of(PyTypeObject *base, PyMethodDef *methods,
                                                    PyObject *cls) {
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, base)) {
        PyErr_SetString(PyExc_TypeError, "a subclass of Core");
        return NULL;
    }
    for (PyMethodDef *m = methods; m->ml_name; m++) {
        if (PyDict_GetItemString(((PyTypeObject *)cls)->tp_dict, m->ml_name))
            continue; /* the subclass's own definition stays */
        PyObject *d = PyDescr_NewMethod((PyTypeObject *)cls, m);
        if (!d) return NULL;
        int bad = PyObject_SetAttrString(cls, m->ml_name, d);
        Py_DECREF(d);
        if (bad < 0) return NULL;
    }
    Py_RETURN_NONE;
}

/* The module's init after its own: the names interned and ``Core`` added (``core_type``,
 * made ready here); the module, or NULL with the module released. */
static PyObject *engine_module(PyObject *m, PyTypeObject *core_type) {
    if (!m) return NULL;
    if (PyType_Ready(core_type) < 0 || intern_common_names() < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(core_type);
    if (PyModule_AddObject(m, "Core", (PyObject *)core_type) < 0) {
        Py_DECREF(core_type);
        Py_DECREF(m);
        return NULL;
    }
    static EngineAPI api;
    api.version = ENGINE_API_VERSION;
    api.core_type = core_type;
    api.legal_ids = api_legal_ids;
    api.apply_id = api_apply_id;
    api.current_player = api_current_player;
    api.is_terminal = api_is_terminal;
    api.prefetch = api_prefetch;
    api.nogil_supported = api_nogil_supported;
    api.nogil_may_play = api_nogil_may_play;
    api.nogil_enter = api_nogil_enter;
    api.raw = api_raw;
#ifdef ENGINE_OBSERVE
    api.observe = api_observe;
#else
    api.observe = NULL;
#endif
    PyObject *capsule = PyCapsule_New(&api, ENGINE_API_CAPSULE, NULL);
    if (!capsule || PyModule_AddObject(m, "_c_api", capsule) < 0) {
        Py_XDECREF(capsule);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

/* The names every engine looks up, interned once by the module's init. */
static int intern_common_names(void) {
    s_getrandbits = PyUnicode_InternFromString("getrandbits");
    s_copy = PyUnicode_InternFromString("copy");
    s_r = PyUnicode_InternFromString("_r");
    s_id = PyUnicode_InternFromString("_id");
    s_apply_slow = PyUnicode_InternFromString("_apply_slow");
    s_shuffle = PyUnicode_InternFromString("shuffle");
    s_randrange = PyUnicode_InternFromString("randrange");
    two63 = PyLong_FromUnsignedLongLong(1ULL << 63);
    if (!s_getrandbits || !s_copy || !s_r || !s_id || !s_apply_slow || !s_shuffle ||
        !s_randrange || !two63)
        return -1;
    return 0;
}

/* ------------------------------------------------------------------ observations */
/* A writable, C-contiguous buffer of ``count`` items of the struct code ``code``. */
static int obs_buffer(PyObject *obj, Py_buffer *view, char code, Py_ssize_t count) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int ok = f[0] == code && f[1] == '\0';
    if (code == 'b' && f[0] == 'B' && f[1] == '\0') ok = 1;
    if (!ok || view->len != count * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "the buffer must hold %zd items of type '%c'", count, code);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* _legal_mask_into(buffer): 1 at each legal action id, 0 elsewhere (int8, the whole
 * action space; all 0 once the game is over). */
ENGINE_MAYBE_UNUSED static PyObject *Core_legal_mask_into(Core *c, PyObject *obj) {
    Py_buffer view;
    if (obs_buffer(obj, &view, 'b', NACT) < 0) return NULL;
    if (c->st.phase != P_OVER && ensure_legal(c) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    char *m = (char *)view.buf;
    memset(m, 0, (size_t)NACT);
    if (c->st.phase != P_OVER)
        for (int i = 0; i < c->nlegal; i++) m[c->legal[i]] = 1;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ the board
 * Elfenland's map, which Elfengold plays on too (an engine defines ENGINE_BOARD, MAXR,
 * MAXT, MAXADJ, ENGINE_PAY_KINDS (the kinds of card a caravan pays with) and
 * ENGINE_MSCODES (5 ** ENGINE_PAY_KINDS)): the routes, towns, distances and the cost
 * table, read once by configure_board, and the caravan's payments in the order of the
 * pure engines' _sub_multisets. */
#ifdef ENGINE_BOARD
#define TERRAIN_RIVER 4
static int NR, NT, NROADS, CAPITAL, NTC;
static int r_a[MAXR], r_b[MAXR], r_terrain[MAXR], r_down[MAXR], r_road[MAXR];
static int adj_n[MAXT], adj_r[MAXT][MAXADJ];
static int roads[MAXR];
static int cost_tab[7][6];
static int dist[MAXT][MAXT];
static int tc_list[MAXT];
static short *ms_off; /* base-5 code of a payment -> its place among the caravans, or -1 */
static const int pow5[8] = {1, 5, 25, 125, 625, 3125, 15625, 78125};

/* ``sizes`` (its first four: routes, towns, the capital, town cards), the routes, the
 * town cards, the adjacency lists, the distances and the cost table; and every payment
 * code unknown (-1) until the engine fills ms_off. */
static int configure_board(PyObject *d, int *sizes, int nsizes) {
    if (int_vector(d, "sizes", sizes, nsizes) < 0) return -1;
    NR = sizes[0]; NT = sizes[1]; CAPITAL = sizes[2]; NTC = sizes[3];
    if (NR > MAXR || NT > MAXT || NT > 62 || NTC > MAXT || NR < 0 || NT < 1 || NTC < 0 ||
        CAPITAL < 0 || CAPITAL >= NT) {
        PyErr_SetString(PyExc_ValueError, "board too large");
        return -1;
    }
    if (int_vector(d, "route_a", r_a, NR) < 0 || int_vector(d, "route_b", r_b, NR) < 0 ||
        int_vector(d, "route_terrain", r_terrain, NR) < 0 ||
        int_vector(d, "route_downstream", r_down, NR) < 0 ||
        int_vector(d, "town_cards", tc_list, NTC) < 0)
        return -1;
    NROADS = 0;
    for (int r = 0; r < NR; r++) {
        r_road[r] = r_terrain[r] < TERRAIN_RIVER;
        if (r_road[r]) roads[NROADS++] = r;
    }
    PyObject *v = get_key(d, "adjacent");
    if (!v) return -1;
    for (int t = 0; t < NT; t++) {
        PyObject *row = PySequence_GetItem(v, t);
        if (!row) return -1;
        Py_ssize_t len = PySequence_Length(row);
        if (len < 0 || len > MAXADJ) { Py_DECREF(row); PyErr_SetString(PyExc_ValueError, "adjacent"); return -1; }
        adj_n[t] = (int)len;
        for (int i = 0; i < len; i++)
            if (get_int_item(row, i, &adj_r[t][i]) < 0) { Py_DECREF(row); return -1; }
        Py_DECREF(row);
    }
    if (!(v = get_key(d, "distances"))) return -1;
    for (int t = 0; t < NT; t++) {
        PyObject *row = PySequence_GetItem(v, t);
        if (!row) return -1;
        for (int u = 0; u < NT; u++)
            if (get_int_item(row, u, &dist[t][u]) < 0) { Py_DECREF(row); return -1; }
        Py_DECREF(row);
    }
    if (!(v = get_key(d, "cost"))) return -1;
    for (int k = 0; k < 7; k++) {
        PyObject *row = PySequence_GetItem(v, k);
        if (!row) return -1;
        for (int t = 0; t < 6; t++)
            if (get_int_item(row, t, &cost_tab[k][t]) < 0) { Py_DECREF(row); return -1; }
        Py_DECREF(row);
    }
    if (!ms_off) {
        ms_off = PyMem_Malloc(sizeof(short) * ENGINE_MSCODES);
        if (!ms_off) { PyErr_NoMemory(); return -1; }
    }
    for (int i = 0; i < ENGINE_MSCODES; i++) ms_off[i] = -1;
    return 0;
}

/* Rafts a river step costs: one downstream, two upstream. */
static int river_rafts(int r, int dir) {
    int to = dir == 0 ? r_b[r] : r_a[r];
    return to == r_down[r] ? 1 : 2;
}

typedef struct {
    int *out, *n, base;
    const int *hand;
    int after[ENGINE_PAY_KINDS];
} SubGen;

/* _sub_multisets' order: the first kinds' counts from high to low; ``code`` is the
 * base-5 code of the counts chosen so far. */
static int sub_rec(SubGen *g, int k, int left, int code) {
    if (k == ENGINE_PAY_KINDS - 1) {
        code += left * pow5[k];
        int off = ms_off[code];
        if (off < 0 || *g->n >= LEGAL_MAX) {
            PyErr_SetString(PyExc_KeyError, "payment outside the action space");
            return -1;
        }
        g->out[(*g->n)++] = g->base + off;
        return 0;
    }
    int hi = left < g->hand[k] ? left : g->hand[k];
    int lo = left - g->after[k] > 0 ? left - g->after[k] : 0;
    for (int x = hi; x >= lo; x--)
        if (sub_rec(g, k + 1, left - x, code + x * pow5[k]) < 0) return -1;
    return 0;
}

/* Every caravan of ``size`` cards ``hand`` can pay, as ids from ``base`` on. */
static int paid_steps(int *out, int *n, int base, const int *hand, int size) {
    if (size > 4 || size < 0) {
        PyErr_SetString(PyExc_KeyError, "payment outside the action space");
        return -1;
    }
    if (size > sum(hand, ENGINE_PAY_KINDS)) return 0;
    SubGen g;
    g.out = out; g.n = n; g.base = base; g.hand = hand;
    g.after[ENGINE_PAY_KINDS - 1] = 0;
    for (int k = ENGINE_PAY_KINDS - 2; k >= 0; k--) g.after[k] = g.after[k + 1] + hand[k + 1];
    return sub_rec(&g, 0, size, 0);
}

/* The other players' town cards dealt again (the town-card variant): the cards but
 * ``player``'s own shuffled with ``rng``, then handed out in seat order; 0 or -1. */
static int redeal_town_cards(S *s, S *t, int player, PyObject *rng) {
    int pool[MAXT], np = 0;
    for (int i = 0; i < NTC; i++) if (tc_list[i] != s->town_cards[player]) pool[np++] = tc_list[i];
    PyObject *list = int_list(pool, np);
    if (!list) return -1;
    PyObject *ok = PyObject_CallMethodOneArg(rng, s_shuffle, list);
    if (!ok) { Py_DECREF(list); return -1; }
    Py_DECREF(ok);
    int i = 0;
    for (int p = 0; p < s->n; p++) {
        if (p == player) continue;
        if (i >= np) {
            Py_DECREF(list);
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            return -1;
        }
        long x = PyLong_AsLong(PyList_GET_ITEM(list, i++));
        if (x == -1 && PyErr_Occurred()) { Py_DECREF(list); return -1; }
        t->town_cards[p] = (int)x;
    }
    Py_DECREF(list);
    return 0;
}

#endif /* ENGINE_BOARD */

#endif /* ELFENLAND_ENGINE_COMMON_H */
