/* The batched environment's loop (elfenland.envs.vector): N games of one compiled engine
 * stepped by one call, writing into numpy arrays the Python side allocated once.
 *
 * Why a loop over the engines' own state objects rather than a second engine: the engines
 * (games/<game>/_speedups.c) are the one implementation of the rules, tested against the
 * pure reference; this file reaches them only through their C entry (core/_engine_api.h,
 * the capsule ``_c_api`` of the engine's module): legal_action_ids, _apply_id,
 * current_player, is_terminal and _observe_into on C types, called directly, so a step
 * makes no Python object per game (no int per id, no list of legal ids, no buffer
 * export); the methods of those names are checked once to be the compiled engine's own
 * (not overridden in Python).  The legal ids are written straight into the padded
 * ``legal`` row, the observation into the game's ``obs`` row.  A new game (automatic
 * reset) and the final returns go through Python (the factory the caller gives, the
 * state's ``returns()``): once a game, not once a step.
 *
 * The legal-action mask is kept up to date incrementally: the previous step's legal ids
 * (kept sorted in the padded ``legal`` row) are cleared and the new ones set, so a step
 * touches O(legal actions) bytes of the mask, not the whole action space (21,958 bytes
 * in Elfenland).
 *
 * ``sample`` picks a uniformly random legal id in every game (what a random agent, an
 * exploration step or ``action_space.sample(mask)`` wants) with a small PRNG per game,
 * splitmix64, seeded from the game's own seed at each (re)start: a game's random play
 * is then a function of its seed alone, whatever N is and whichever slot it is in.  The
 * bound is Lemire's multiply-and-reject, so every legal id is exactly equally likely.
 * vector.py's Python loop does the same arithmetic (tests compare the two).
 *
 * Threads (``threads`` k > 1, issue #25): ``step`` and ``sample`` split the games into k
 * contiguous slices, the calling thread playing the first and a pool of k - 1 threads
 * (started at the first such call, kept for the batch's life) the others, all without
 * the GIL.  The actions are checked against the masks first, with the GIL, so an illegal
 * one still changes nothing.  A slice plays a game only where the engine's C entry says
 * its step touches no Python object (nogil_may_play: the draws come from the game's own
 * random.Random generator read in C, the history buffer from the raw allocator, the
 * engine's errors go to the slice's EngineFailure instead of Python); what needs Python
 * is marked in ``todo`` and done after the join by the calling thread, with the GIL, in
 * slot order: a game's end (``returns()``, the factory's next game), a game the slice
 * left untouched (played then, as on one thread), and the first failure in slot order,
 * raised (the batch then needs a reset).  Games share nothing, so the arrays are the
 * same bits as one thread's whatever k is.
 *
 * Per call, ``step`` and ``sample`` cost little beyond the games' own work at N = 1: the
 * arrays are pointers taken once at construction, and the batch's own ``actions``
 * array (what ``sample`` fills by default) is recognised by identity, not exported as
 * a buffer again.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/_engine_api.h"

/* The arrays the batch writes (and reads: the actions), exported once. */
enum { B_OBS, B_MASK, B_LEGAL, B_NLEGAL, B_PLAYER, B_ACTOR, B_REWARDS, B_TERM, B_TRUNC, B_SEED,
       B_MOVES, B_ACTIONS, B_COUNT };

typedef struct {
    PyObject_HEAD
    Py_ssize_t n;            /* games */
    int players, obs_size, nact, width;
    long long cap;           /* a game stops (truncated) after this many actions; 0: never */
    PyObject *factory;       /* callable(seed) -> a new engine state */
    PyObject *error;         /* exception class for an illegal action */
    PyObject *s_returns;
    PyTypeObject *state_type;
    PyObject *capsule;       /* holds the engine's module's C entry */
    const EngineAPI *api;
    PyObject **states;       /* n owned states */
    Py_buffer b[B_COUNT];
    int nbuf;
    float *obs; int8_t *mask; int32_t *legal, *nlegal, *player, *actor;
    float *rewards; uint8_t *term, *trunc; int64_t *seed, *moves, *episode;
    PyObject *actions_obj;   /* the batch's own actions array (N int64) ... */
    int64_t *actions;        /* ... and its data, exported once (b[]) */
    int64_t *act;            /* n: the ids of the step running, copied before they are
                              * checked, so that nothing the step runs (the factory,
                              * returns(), another thread while the GIL is released) can
                              * change an id between its check and its play */
    uint64_t *rng;           /* n splitmix64 states: the sampler of each game */
    PyObject *convert;       /* callable(actions) -> an int64 array of n, or raises */
    long long base_seed;
    int ready, started;
    int threads;             /* k slices (clamped to n), 1: no thread, the GIL kept */
    int busy;                /* a call runs: a threaded one without the GIL, or Python
                              * code a step or reset runs (the factory, returns()) */
    struct Pool *pool;       /* the k - 1 threads, started by the first threaded call */
    uint8_t *todo;           /* n: what a threaded step left to the GIL's thread (T_...) */
    long long nogil_steps;   /* game steps the slices played without the GIL, ... */
    long long gil_steps;     /* ... and those a threaded step left to the calling thread */
} Vec;

/* After a threaded step, what game i still needs from the thread holding the GIL. */
enum { T_DONE, T_ENDED, T_TRUNCATED, T_PYTHON };

/* One thread's contiguous share of the games, and the first failure it met there. */
typedef struct {
    Py_ssize_t lo, hi, failed_at; /* failed_at: the game that failed, or -1 */
    Py_ssize_t played;            /* games played here by the last step */
    EngineFailure failure;
} Slice;

/* The k - 1 threads (the calling thread plays slice 0): each waits for the next job
 * (``generation`` moves on), plays its slice, and counts itself off ``pending``.  A
 * pool belongs to the process that started it: after a fork the child starts its own. */
typedef struct Pool {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long generation;
    int pending, stop, started;
    pid_t pid;
    Vec *v;
    int job;                 /* J_STEP or J_SAMPLE */
    const int64_t *act;      /* J_STEP: the ids */
    int64_t *dst;            /* J_SAMPLE: where the draws go */
    pthread_t *tids;
    Slice *slices;           /* k */
    void *args;              /* k WorkerArg: each thread's pool and slice */
} Pool;
enum { J_STEP, J_SAMPLE };

/* The sampler's PRNG: splitmix64 (Steele, Lea, Flood 2014; the seeding generator of
 * xoshiro), one 64-bit state per game. */
#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ULL
/* A game of seed s starts its sampler at mix(s ^ SAMPLER_SALT) (so it is not the game's
 * own card-drawing stream, nor its neighbour's shifted by one). */
#define SAMPLER_SALT 0x5851F42D4C957F2DULL

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t next64(uint64_t *state) {
    *state += SPLITMIX_GAMMA;
    return mix64(*state);
}

/* The high 64 bits of a * b, the low ones in *low (with a 128-bit type where the
 * compiler has one, else from 32-bit halves: the same bits). */
static inline uint64_t mul_high(uint64_t a, uint64_t b, uint64_t *low) {
#ifdef __SIZEOF_INT128__
    unsigned __int128 m = (unsigned __int128)a * b;
    *low = (uint64_t)m;
    return (uint64_t)(m >> 64);
#else
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    *low = (mid << 32) | (uint32_t)ll;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* A uniform integer in [0, range), range >= 1 (Lemire 2019: multiply, reject the few
 * low parts that would make some values likelier). */
static inline uint64_t bounded(uint64_t *state, uint64_t range) {
    uint64_t low, high = mul_high(next64(state), range, &low);
    if (low < range) {
        uint64_t floor = (0 - range) % range;
        while (low < floor) high = mul_high(next64(state), range, &low);
    }
    return high;
}

static int get_buffer(Vec *v, PyObject *obj, Py_ssize_t items, Py_ssize_t itemsize,
                      const char *what, void **out) {
    Py_buffer *view = &v->b[v->nbuf];
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    v->nbuf++;
    if (view->itemsize != itemsize || view->len != items * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items of %zd bytes expected", what, items,
                     itemsize);
        return -1;
    }
    *out = view->buf;
    return 0;
}

static int method(PyTypeObject *tp, PyTypeObject *core, const char *name, int flags) {
    PyObject *d = PyObject_GetAttrString((PyObject *)tp, name);
    if (!d) return -1;
    int ok = Py_IS_TYPE(d, &PyMethodDescr_Type)
        && (((PyMethodDescrObject *)d)->d_method->ml_flags & (METH_O | METH_NOARGS | METH_VARARGS
                                                              | METH_FASTCALL | METH_KEYWORDS)) == flags
        && PyType_IsSubtype(tp, ((PyDescrObject *)d)->d_type);
    /* the engine's own function (an engine may copy its descriptors onto a subclass) */
    PyObject *own = ok ? PyDict_GetItemString(core->tp_dict, name) : NULL;
    ok = ok && own && Py_IS_TYPE(own, &PyMethodDescr_Type)
        && ((PyMethodDescrObject *)own)->d_method->ml_meth
           == ((PyMethodDescrObject *)d)->d_method->ml_meth;
    Py_DECREF(d);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not the compiled engine's method", tp->tp_name,
                     name);
        return -1;
    }
    return 0;
}

/* The engines list legal ids nearly in order (sorted in most positions): insertion
 * sort is then one pass. */
static void sort_ids(int32_t *a, Py_ssize_t k) {
    for (Py_ssize_t j = 1; j < k; j++) {
        int32_t x = a[j];
        Py_ssize_t m = j;
        while (m > 0 && a[m - 1] > x) { a[m] = a[m - 1]; m--; }
        a[m] = x;
    }
}

/* An error of this file: raised (sink NULL, the GIL held) or kept in the sink of a
 * thread without the GIL, as the engine's own errors are there (_engine_api.h). */
static void fail(EngineFailure *sink, PyObject *type, const char *format, ...) {
    char message[sizeof sink->message];
    va_list va;
    va_start(va, format);
    vsnprintf(message, sizeof message, format, va);
    va_end(va);
    if (!sink) {
        PyErr_SetString(type, message);
    } else if (!sink->type) {
        sink->type = type;
        memcpy(sink->message, message, sizeof message);
    }
}

/* After a game's state changed: its seat to act, observation, legal ids and mask.  On
 * an error the batch is inconsistent (the callers then demand a reset).  ``sink``: NULL
 * with the GIL, else the failure of a thread without it (the engine writes its own
 * errors there too: nogil_enter). */
static int refresh(Vec *v, Py_ssize_t i, EngineFailure *sink) {
    PyObject *st = v->states[i];
    int p = v->api->current_player(st);
    if (p < 0 || p >= v->players) {
        fail(sink, PyExc_RuntimeError, "game %zd: no player to act (%d)", i, p);
        return -1;
    }
    v->player[i] = (int32_t)p;
    if (v->api->observe(st, p, v->obs + i * (Py_ssize_t)v->obs_size, v->obs_size) < 0)
        return -1;
    int32_t *row = v->legal + i * (Py_ssize_t)v->width;
    int8_t *mask = v->mask + i * (Py_ssize_t)v->nact;
    int32_t old = v->nlegal[i];
    for (int32_t j = 0; j < old; j++) mask[row[j]] = 0;
    v->nlegal[i] = 0;
    int k = v->api->legal_ids(st, row, v->width);
    if (k < 0) return -1;
    if (k == 0) {
        fail(sink, PyExc_RuntimeError, "game %zd: no legal action", i);
        return -1;
    }
    for (int j = 0; j < k; j++)
        if (row[j] < 0 || row[j] >= v->nact) {
            fail(sink, PyExc_RuntimeError, "legal id %d out of range", (int)row[j]);
            return -1;
        }
    sort_ids(row, k);
    for (int j = 0; j < k; j++) mask[row[j]] = 1;
    for (int32_t j = k; j < old; j++) row[j] = -1;
    v->nlegal[i] = (int32_t)k;
    return 0;
}

/* Game ``i`` starts its next game: seed base + i + n * episode, modulo 2**63 (vector.py
 * takes base in [0, 2**63): the seeds stay non-negative, the engines' seeds -s and s being
 * one game, and the sum never overflows a signed type). */
static int start(Vec *v, Py_ssize_t i) {
    long long seed = (long long)(((uint64_t)v->base_seed + (uint64_t)i
                                  + (uint64_t)v->n * (uint64_t)v->episode[i])
                                 & (uint64_t)INT64_MAX);
    PyObject *s = PyLong_FromLongLong(seed);
    if (!s) return -1;
    PyObject *st = PyObject_CallOneArg(v->factory, s);
    Py_DECREF(s);
    if (!st) return -1;
    if (Py_TYPE(st) != v->state_type) {
        Py_DECREF(st);
        PyErr_SetString(PyExc_TypeError, "the factory gave a state of another engine");
        return -1;
    }
    Py_XSETREF(v->states[i], st);
    v->seed[i] = seed;
    v->moves[i] = 0;
    v->rng[i] = mix64((uint64_t)seed ^ SAMPLER_SALT);
    return 0;
}

static int check_free(Vec *v);

static PyObject *reset_all(Vec *v, long long seed);

static PyObject *Vec_reset(Vec *v, PyObject *arg) {
    if (check_free(v) < 0) return NULL;
    long long seed = PyLong_AsLongLong(arg);
    if (seed == -1 && PyErr_Occurred()) return NULL;
    if (seed < 0) {
        PyErr_SetString(PyExc_ValueError, "a seed is in [0, 2**63)");
        return NULL;
    }
    v->busy = 1;
    PyObject *r = reset_all(v, seed);
    v->busy = 0;
    return r;
}

static PyObject *reset_all(Vec *v, long long seed) {
    v->base_seed = seed;
    memset(v->mask, 0, (size_t)v->n * v->nact);
    for (Py_ssize_t j = 0; j < v->n * v->width; j++) v->legal[j] = -1;
    memset(v->nlegal, 0, sizeof(int32_t) * v->n);
    memset(v->rewards, 0, sizeof(float) * v->n * v->players);
    memset(v->term, 0, v->n);
    memset(v->trunc, 0, v->n);
    for (Py_ssize_t i = 0; i < v->n; i++) {
        v->actor[i] = -1;
        v->episode[i] = 0;
        if (start(v, i) < 0 || refresh(v, i, NULL) < 0) { v->ready = 0; return NULL; }
    }
    v->ready = v->started = 1;
    Py_RETURN_NONE;
}

/* With many games their states and rows no longer stay in the cache, and each step
 * starts by missing on them: the next game's engine state (as its engine knows it:
 * the struct and the legal ids) and observation row are asked for while this game
 * steps. */
static inline void prefetch_game(Vec *v, Py_ssize_t i) {
    v->api->prefetch(v->states[i]);
    const char *row = (const char *)(v->obs + i * (Py_ssize_t)v->obs_size);
    for (Py_ssize_t b = 0; b < (Py_ssize_t)sizeof(float) * v->obs_size; b += 64)
        __builtin_prefetch(row + b, 1, 3);
}

/* The ids ``arg`` holds, as n int64: the batch's own ``actions`` array is taken as it
 * is (its data pointer was exported once); another C-contiguous one-dimensional int64
 * buffer of n is exported for this call (``view`` is then to be released: *held = 1);
 * anything else (a list, another dtype or shape) goes through ``convert`` (vector.py:
 * numpy's conversion, which raises on a wrong shape), whose result is then held in
 * *owned.  NULL with the error set. */
static const int64_t *action_ids(Vec *v, PyObject *arg, Py_buffer *view, int *held,
                                 PyObject **owned) {
    *held = 0;
    *owned = NULL;
    if (arg == v->actions_obj) return v->actions;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (PyObject_GetBuffer(arg, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0) {
            const char *f = view->format ? view->format : "B";
            if (*f == '<' || *f == '=' || *f == '@') f++;
            if (view->itemsize == 8 && view->ndim == 1 && view->len == v->n * 8
                    && (f[0] == 'q' || f[0] == 'l') && f[1] == '\0') {
                *held = 1;
                return (const int64_t *)view->buf;
            }
            PyBuffer_Release(view);
        } else {
            PyErr_Clear();
        }
        if (attempt) break;
        *owned = PyObject_CallOneArg(v->convert, arg);
        if (!*owned) return NULL;
        arg = *owned;
    }
    Py_CLEAR(*owned);
    PyErr_SetString(PyExc_TypeError, "convert() gave no int64 array of n ids");
    return NULL;
}

/* Game i's end, with the GIL: its returns (``ended``: by the rules) or its truncation,
 * then the slot's next game. */
static int finish_game(Vec *v, Py_ssize_t i, int ended) {
    if (ended) {
        PyObject *ret = PyObject_CallMethodNoArgs(v->states[i], v->s_returns);
        if (!ret) return -1;
        PyObject *seq = PySequence_Fast(ret, "returns() is a sequence");
        Py_DECREF(ret);
        if (!seq) return -1;
        if (PySequence_Fast_GET_SIZE(seq) != v->players) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_RuntimeError, "returns() of another length");
            return -1;
        }
        for (int p = 0; p < v->players; p++) {
            double x = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, p));
            if (x == -1.0 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
            v->rewards[i * v->players + p] = (float)x;
        }
        Py_DECREF(seq);
        v->term[i] = 1;
    } else {
        v->trunc[i] = 1;
    }
    v->episode[i]++;
    if (start(v, i) < 0) return -1;
    return refresh(v, i, NULL);
}

/* Game i plays id ``a`` (checked legal by the mask), with the GIL: the serial loop's
 * body, and the GIL's thread's share of a threaded step (T_PYTHON). */
static inline int step_one(Vec *v, Py_ssize_t i, int64_t a) {
    PyObject *st = v->states[i];
    int played = v->api->apply_id(st, (Py_ssize_t)a);
    if (played < 0) return -1;
    if (!played) {
        PyErr_Format(PyExc_RuntimeError, "game %zd: the engine refused action %lld", i,
                     (long long)a);
        return -1;
    }
    v->actor[i] = v->player[i];
    v->moves[i]++;
    if (v->api->is_terminal(st)) return finish_game(v, i, 1);
    if (v->cap > 0 && v->moves[i] >= v->cap) return finish_game(v, i, 0);
    return refresh(v, i, NULL);
}

/* A thread's share of a step, without the GIL: each game whose step touches no Python
 * object (nogil_may_play) plays and is refreshed here; a game that ends (its returns, the
 * next game) or that needs Python to play is marked in ``todo`` for the GIL's thread.
 * The first failure stops the slice (the batch then needs a reset, as on one thread). */
static void step_slice(Vec *v, const int64_t *act, Slice *sl) {
    EngineFailure *sink = &sl->failure;
    v->api->nogil_enter(sink);
    sl->failed_at = -1;
    sl->played = 0;
    for (Py_ssize_t i = sl->lo; i < sl->hi; i++) {
        PyObject *st = v->states[i];
        if (i + 1 < sl->hi) prefetch_game(v, i + 1);
        if (!v->api->nogil_may_play(st, (Py_ssize_t)act[i])) {
            v->todo[i] = T_PYTHON;
            continue;
        }
        int played = v->api->apply_id(st, (Py_ssize_t)act[i]);
        if (played <= 0) {
            if (!played)
                fail(sink, PyExc_RuntimeError, "game %zd: the engine refused action %lld", i,
                     (long long)act[i]);
            sl->failed_at = i;
            break;
        }
        sl->played++;
        v->actor[i] = v->player[i];
        v->moves[i]++;
        if (v->api->is_terminal(st)) {
            v->todo[i] = T_ENDED;
        } else if (v->cap > 0 && v->moves[i] >= v->cap) {
            v->todo[i] = T_TRUNCATED;
        } else if (refresh(v, i, sink) < 0) {
            sl->failed_at = i;
            break;
        } else {
            v->todo[i] = T_DONE;
        }
    }
    if (sl->failed_at >= 0 && !sink->type)
        fail(sink, PyExc_RuntimeError, "game %zd: the engine failed", sl->failed_at);
    v->api->nogil_enter(NULL);
}

/* A uniformly random legal id of games lo..hi - 1 into dst (no Python: any thread). */
static void sample_slice(Vec *v, int64_t *dst, Py_ssize_t lo, Py_ssize_t hi) {
    for (Py_ssize_t i = lo; i < hi; i++) {
        uint64_t k = bounded(&v->rng[i], (uint64_t)v->nlegal[i]);
        dst[i] = v->legal[i * (Py_ssize_t)v->width + (Py_ssize_t)k];
    }
}

/* ------------------------------------------------------------------ the threads */
typedef struct {
    Pool *pool;
    int w;
} WorkerArg;

static void run_job(Pool *pl, int w) {
    Slice *sl = &pl->slices[w];
    if (pl->job == J_STEP) step_slice(pl->v, pl->act, sl);
    else sample_slice(pl->v, pl->dst, sl->lo, sl->hi);
}

static void *worker(void *arg) {
    Pool *pl = ((WorkerArg *)arg)->pool;
    int w = ((WorkerArg *)arg)->w;
    unsigned long seen = 0;
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        while (pl->generation == seen && !pl->stop) pthread_cond_wait(&pl->go, &pl->mu);
        if (pl->stop) break;
        seen = pl->generation;
        pthread_mutex_unlock(&pl->mu);
        run_job(pl, w);
        pthread_mutex_lock(&pl->mu);
        if (--pl->pending == 0) pthread_cond_signal(&pl->done);
    }
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

/* One job over all slices, without the GIL: slice 0 on the calling thread, the others
 * on the pool's threads; returns when all are done. */
static void pool_run(Pool *pl, int job, const int64_t *act, int64_t *dst) {
    pthread_mutex_lock(&pl->mu);
    pl->job = job;
    pl->act = act;
    pl->dst = dst;
    pl->pending = pl->v->threads - 1;
    pl->generation++;
    pthread_cond_broadcast(&pl->go);
    pthread_mutex_unlock(&pl->mu);
    run_job(pl, 0);
    pthread_mutex_lock(&pl->mu);
    while (pl->pending) pthread_cond_wait(&pl->done, &pl->mu);
    pthread_mutex_unlock(&pl->mu);
}

/* The pool's threads stopped and joined, its memory freed (with the GIL, which the
 * threads never take).  A pool a parent process started is only forgotten: its threads
 * are not in this process and its lock may have been held at the fork. */
static void pool_free(Vec *v) {
    Pool *pl = v->pool;
    v->pool = NULL;
    if (!pl || pl->pid != getpid()) return;
    pthread_mutex_lock(&pl->mu);
    pl->stop = 1;
    pthread_cond_broadcast(&pl->go);
    pthread_mutex_unlock(&pl->mu);
    for (int w = 1; w <= pl->started; w++) pthread_join(pl->tids[w], NULL);
    pthread_cond_destroy(&pl->go);
    pthread_cond_destroy(&pl->done);
    pthread_mutex_destroy(&pl->mu);
    PyMem_RawFree(pl->tids);
    PyMem_RawFree(pl->slices);
    PyMem_RawFree(pl->args);
    PyMem_RawFree(pl);
}

/* The pool of this process, started if needed (with the GIL, before the call changes
 * anything): k - 1 threads kept for the batch's life (a job then costs a wake-up, not a
 * thread's creation: see docs/research.md).  0, or -1 with the error. */
static int pool_ready(Vec *v) {
    if (v->pool && v->pool->pid == getpid()) return 0;
    if (v->pool) v->pool = NULL; /* a parent's: see pool_free */
    int k = v->threads;
    Pool *pl = PyMem_RawCalloc(1, sizeof(Pool));
    WorkerArg *args = pl ? PyMem_RawCalloc((size_t)k, sizeof(WorkerArg)) : NULL;
    if (pl) {
        pl->tids = PyMem_RawCalloc((size_t)k, sizeof(pthread_t));
        pl->slices = PyMem_RawCalloc((size_t)k, sizeof(Slice));
    }
    if (!pl || !args || !pl->tids || !pl->slices) {
        if (pl) { PyMem_RawFree(pl->tids); PyMem_RawFree(pl->slices); }
        PyMem_RawFree(pl);
        PyMem_RawFree(args);
        PyErr_NoMemory();
        return -1;
    }
    pthread_mutex_init(&pl->mu, NULL);
    pthread_cond_init(&pl->go, NULL);
    pthread_cond_init(&pl->done, NULL);
    pl->pid = getpid();
    pl->v = v;
    for (int w = 0; w < k; w++) {
        pl->slices[w].lo = v->n * w / k;
        pl->slices[w].hi = v->n * (w + 1) / k;
        pl->slices[w].failed_at = -1;
    }
    /* WorkerArg lives as long as the pool: kept after the slices' array */
    v->pool = pl;
    int err = 0;
    for (int w = 1; w < k && !err; w++) {
        args[w].pool = pl;
        args[w].w = w;
        err = pthread_create(&pl->tids[w], NULL, worker, &args[w]);
        if (!err) pl->started = w;
    }
    pl->args = args;
    if (err) {
        pool_free(v);
        errno = err;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    return 0;
}

/* Whether the batch is free: a threaded call runs without the GIL, and another Python
 * thread must not step, sample or reset the batch meanwhile. */
static int check_free(Vec *v) {
    if (v->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the batch is busy in another thread (or "
                        "called again from inside its own step or reset)");
        return -1;
    }
    return 0;
}

/* step(actions): one action id per game; every id is checked against the masks first,
 * so a bad one raises and changes nothing.  With threads, the slices play without the
 * GIL, then this thread (with it) does what they left in ``todo`` in slot order, and
 * raises the first failure in slot order. */
static PyObject *step_checked(Vec *v, PyObject *arg);

static PyObject *Vec_step(Vec *v, PyObject *arg) {
    if (check_free(v) < 0) return NULL;
    v->busy = 1;
    PyObject *r = step_checked(v, arg);
    v->busy = 0;
    return r;
}

static PyObject *step_checked(Vec *v, PyObject *arg) {
    if (!v->ready) {
        if (!v->started) PyErr_SetString(v->error, "reset() first");
        else PyErr_SetString(PyExc_RuntimeError, "reset() again, after an error");
        return NULL;
    }
    Py_buffer view;
    int held;
    PyObject *owned;
    const int64_t *given = action_ids(v, arg, &view, &held, &owned);
    if (!given) return NULL;
    /* The batch's copy: what is checked is what is played, whatever changes the
     * caller's array meanwhile. */
    int64_t *act = v->act;
    memcpy(act, given, sizeof(int64_t) * (size_t)v->n);
    if (held) PyBuffer_Release(&view);
    Py_XDECREF(owned);
    for (Py_ssize_t i = 0; i < v->n; i++) {
        int64_t a = act[i];
        if (a < 0 || a >= v->nact || !v->mask[i * (Py_ssize_t)v->nact + a]) {
            PyErr_Format(v->error, "game %zd: action %lld is not legal now", i, (long long)a);
            return NULL;
        }
    }
    if (v->threads > 1 && pool_ready(v) < 0) return NULL;
    memset(v->rewards, 0, sizeof(float) * v->n * v->players);
    memset(v->term, 0, v->n);
    memset(v->trunc, 0, v->n);
    if (v->threads > 1) {
        Pool *pl = v->pool;
        Py_BEGIN_ALLOW_THREADS
        pool_run(pl, J_STEP, act, NULL);
        Py_END_ALLOW_THREADS
        const Slice *bad = NULL;
        for (int w = 0; w < v->threads; w++) {
            v->nogil_steps += pl->slices[w].played;
            if (!bad && pl->slices[w].failed_at >= 0) bad = &pl->slices[w];
        }
        Py_ssize_t first = bad ? bad->failed_at : v->n;
        for (Py_ssize_t i = 0; i < first; i++) {
            int rc = 0;
            switch (v->todo[i]) {
            case T_PYTHON: rc = step_one(v, i, act[i]); v->gil_steps++; break;
            case T_ENDED: rc = finish_game(v, i, 1); break;
            case T_TRUNCATED: rc = finish_game(v, i, 0); break;
            }
            if (rc < 0) goto fail;
        }
        if (bad) {
            PyErr_SetString(bad->failure.type, bad->failure.message);
            goto fail;
        }
    } else {
        for (Py_ssize_t i = 0; i < v->n; i++) {
            if (i + 1 < v->n) prefetch_game(v, i + 1);
            if (step_one(v, i, act[i]) < 0) goto fail;
        }
    }
    Py_RETURN_NONE;
fail:
    /* An engine error half-way: the batch is inconsistent, so it must be reset. */
    v->ready = 0;
    return NULL;
}

/* sample(out=None): a uniformly random legal id of every game, into ``out`` (a writable
 * C-contiguous int64 buffer of n) or, without one, into the batch's own ``actions``
 * array; returns the array filled. */
static PyObject *Vec_sample(Vec *v, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    PyObject *out = Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw > 1 || (nkw && PyUnicode_CompareWithASCIIString(
                                      PyTuple_GET_ITEM(kwnames, 0), "out") != 0)) {
        PyErr_SetString(PyExc_TypeError, "sample(out=None)");
        return NULL;
    }
    if (nargs + nkw == 1) out = args[0];
    if (!v->ready) {
        if (!v->started) PyErr_SetString(v->error, "reset() first");
        else PyErr_SetString(PyExc_RuntimeError, "reset() again, after an error");
        return NULL;
    }
    if (check_free(v) < 0) return NULL;
    int64_t *dst = v->actions;
    Py_buffer view;
    int held = 0;
    if (out == Py_None) {
        out = v->actions_obj;
    } else if (out != v->actions_obj) {
        int fits = PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS
                                      | PyBUF_FORMAT) == 0;
        if (fits) {
            held = 1;
            const char *f = view.format ? view.format : "B";
            if (*f == '<' || *f == '=' || *f == '@') f++;
            fits = view.itemsize == 8 && view.ndim == 1 && view.len == v->n * 8
                && (f[0] == 'q' || f[0] == 'l') && f[1] == '\0';
        }
        if (!fits) {
            if (held) PyBuffer_Release(&view);
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "out: a writable C-contiguous int64 array of %zd "
                         "ids", v->n);
            return NULL;
        }
        dst = (int64_t *)view.buf;
    }
    if (v->threads > 1) {
        if (pool_ready(v) < 0) {
            if (held) PyBuffer_Release(&view);
            return NULL;
        }
        Pool *pl = v->pool;
        v->busy = 1;
        Py_BEGIN_ALLOW_THREADS
        pool_run(pl, J_SAMPLE, NULL, dst);
        Py_END_ALLOW_THREADS
        v->busy = 0;
    } else {
        sample_slice(v, dst, 0, v->n);
    }
    if (held) PyBuffer_Release(&view);
    return Py_NewRef(out);
}

static PyObject *Vec_state(Vec *v, PyObject *arg) {
    if (check_free(v) < 0) return NULL;
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= v->n || !v->states[i]) {
        PyErr_Format(PyExc_IndexError, "no game %zd", i);
        return NULL;
    }
    return Py_NewRef(v->states[i]);
}

static void Vec_clear_all(Vec *v) {
    pool_free(v);
    PyMem_Free(v->todo);
    v->todo = NULL;
    if (v->states) {
        for (Py_ssize_t i = 0; i < v->n; i++) Py_CLEAR(v->states[i]);
        PyMem_Free(v->states);
        v->states = NULL;
    }
    for (int k = 0; k < v->nbuf; k++) PyBuffer_Release(&v->b[k]);
    v->nbuf = 0;
    PyMem_Free(v->episode);
    v->episode = NULL;
    PyMem_Free(v->rng);
    v->rng = NULL;
    PyMem_Free(v->act);
    v->act = NULL;
    v->actions = NULL;
    Py_CLEAR(v->actions_obj);
    Py_CLEAR(v->convert);
    Py_CLEAR(v->factory);
    Py_CLEAR(v->error);
    Py_CLEAR(v->s_returns);
    Py_CLEAR(v->state_type);
    Py_CLEAR(v->capsule);
    v->api = NULL;
}

static void Vec_dealloc(Vec *v) {
    Vec_clear_all(v);
    Py_TYPE(v)->tp_free((PyObject *)v);
}

/* Batch(factory, probe, c_api, n, players, obs_size, nact, width, cap, error, convert,
 *       obs, mask, legal, nlegal, player, actor, rewards, terminated, truncated, seed,
 *       moves, actions) */
static int Vec_init(Vec *v, PyObject *args, PyObject *kw) {
    PyObject *factory, *probe, *capsule, *error, *convert, *bufs[B_COUNT];
    Py_ssize_t n;
    int players, obs_size, nact, width;
    long long cap;
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "Batch takes positional arguments");
        return -1;
    }
    int threads = 1;
    if (!PyArg_ParseTuple(args, "OOOniiiiLOOOOOOOOOOOOOO|i", &factory, &probe, &capsule, &n,
                          &players, &obs_size, &nact, &width, &cap, &error, &convert,
                          &bufs[B_OBS], &bufs[B_MASK],
                          &bufs[B_LEGAL], &bufs[B_NLEGAL], &bufs[B_PLAYER], &bufs[B_ACTOR],
                          &bufs[B_REWARDS], &bufs[B_TERM], &bufs[B_TRUNC], &bufs[B_SEED],
                          &bufs[B_MOVES], &bufs[B_ACTIONS], &threads))
        return -1;
    Vec_clear_all(v);
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "at least one game");
        return -1;
    }
    if (players < 2 || players > 6 || obs_size < 1 || nact < 1 || width < 1 || cap < 0) {
        PyErr_SetString(PyExc_ValueError, "bad sizes");
        return -1;
    }
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "threads: at least 1");
        return -1;
    }
    v->n = n;
    v->players = players; v->obs_size = obs_size; v->nact = nact; v->width = width;
    v->cap = cap;
    v->factory = Py_NewRef(factory);
    v->error = Py_NewRef(error);
    v->convert = Py_NewRef(convert);
    v->s_returns = PyUnicode_InternFromString("returns");
    v->state_type = (PyTypeObject *)Py_NewRef((PyObject *)Py_TYPE(probe));
    if (!v->s_returns) return -1;
    PyTypeObject *tp = v->state_type;
    v->api = PyCapsule_GetPointer(capsule, ENGINE_API_CAPSULE);
    if (!v->api) return -1;
    v->capsule = Py_NewRef(capsule);
    if (v->api->version != ENGINE_API_VERSION || !v->api->observe
            || !PyType_IsSubtype(tp, v->api->core_type)) {
        PyErr_Format(PyExc_TypeError, "%s is not the C entry's engine (or has no "
                     "observation)", tp->tp_name);
        return -1;
    }
    /* The state's methods of these names must be the engine's own, which the C entry
     * does (a subclass overriding one in Python would make the batch differ). */
    if (method(tp, v->api->core_type, "_apply_id", METH_O) < 0
            || method(tp, v->api->core_type, "legal_action_ids", METH_NOARGS) < 0
            || method(tp, v->api->core_type, "current_player", METH_NOARGS) < 0
            || method(tp, v->api->core_type, "is_terminal", METH_NOARGS) < 0
            || method(tp, v->api->core_type, "_observe_into", METH_VARARGS) < 0)
        return -1;
    void *p;
    if (get_buffer(v, bufs[B_OBS], n * obs_size, 4, "obs", &p) < 0) return -1;
    v->obs = p;
    if (get_buffer(v, bufs[B_MASK], n * nact, 1, "mask", &p) < 0) return -1;
    v->mask = p;
    if (get_buffer(v, bufs[B_LEGAL], n * width, 4, "legal", &p) < 0) return -1;
    v->legal = p;
    if (get_buffer(v, bufs[B_NLEGAL], n, 4, "nlegal", &p) < 0) return -1;
    v->nlegal = p;
    if (get_buffer(v, bufs[B_PLAYER], n, 4, "player", &p) < 0) return -1;
    v->player = p;
    if (get_buffer(v, bufs[B_ACTOR], n, 4, "actor", &p) < 0) return -1;
    v->actor = p;
    if (get_buffer(v, bufs[B_REWARDS], n * players, 4, "rewards", &p) < 0) return -1;
    v->rewards = p;
    if (get_buffer(v, bufs[B_TERM], n, 1, "terminated", &p) < 0) return -1;
    v->term = p;
    if (get_buffer(v, bufs[B_TRUNC], n, 1, "truncated", &p) < 0) return -1;
    v->trunc = p;
    if (get_buffer(v, bufs[B_SEED], n, 8, "seed", &p) < 0) return -1;
    v->seed = p;
    if (get_buffer(v, bufs[B_MOVES], n, 8, "moves", &p) < 0) return -1;
    v->moves = p;
    if (get_buffer(v, bufs[B_ACTIONS], n, 8, "actions", &p) < 0) return -1;
    v->actions = p;
    v->actions_obj = Py_NewRef(bufs[B_ACTIONS]);
    v->states = PyMem_Calloc((size_t)n, sizeof(PyObject *));
    v->episode = PyMem_Calloc((size_t)n, sizeof(int64_t));
    v->rng = PyMem_Calloc((size_t)n, sizeof(uint64_t));
    v->todo = PyMem_Calloc((size_t)n, 1);
    v->act = PyMem_Calloc((size_t)n, sizeof(int64_t));
    if (!v->states || !v->episode || !v->rng || !v->todo || !v->act) {
        PyErr_NoMemory();
        return -1;
    }
    /* k slices of at least one game each; one if this engine's draws need Python here
     * (then the threads would only wait for the GIL). */
    v->threads = threads < n ? threads : (int)n;
    if (v->threads > 1) {
        int native = v->api->nogil_supported();
        if (native < 0) return -1;
        if (!native) v->threads = 1;
    }
    v->ready = v->started = 0;
    return 0;
}

static PyMemberDef Vec_members[] = {
    {"threads", T_INT, offsetof(Vec, threads), READONLY,
     "the slices a call is split into (1: one thread, the GIL kept)"},
    {"nogil_steps", T_LONGLONG, offsetof(Vec, nogil_steps), READONLY,
     "game steps the threads played without the GIL (threads > 1)"},
    {"gil_steps", T_LONGLONG, offsetof(Vec, gil_steps), READONLY,
     "game steps a threaded step left to the calling thread, played with the GIL"},
    {NULL}
};

static PyMethodDef Vec_methods[] = {
    {"reset", (PyCFunction)Vec_reset, METH_O, "reset(seed): every game starts again."},
    {"step", (PyCFunction)Vec_step, METH_O, "step(actions): one action id per game."},
    {"sample", (PyCFunction)(void (*)(void))Vec_sample, METH_FASTCALL | METH_KEYWORDS,
     "sample(out=None): a uniformly random legal id per game."},
    {"state", (PyCFunction)Vec_state, METH_O, "state(i): game i's engine state (read it)."},
    {NULL}
};

static PyTypeObject VecType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "elfenland.envs._vector.Batch",
    .tp_basicsize = sizeof(Vec),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "N games of one compiled engine, stepped together (see vector.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Vec_init,
    .tp_dealloc = (destructor)Vec_dealloc,
    .tp_methods = Vec_methods,
    .tp_members = Vec_members,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_vector",
    .m_doc = "The batched environment's loop (see vector.py).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__vector(void) {
    if (PyType_Ready(&VecType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Batch", (PyObject *)&VecType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
