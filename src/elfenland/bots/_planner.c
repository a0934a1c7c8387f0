/* The Elfenland movement planner's search, compiled (issue #16).
 *
 * A line-by-line port of ``_reach`` and ``_Search`` in ``planner.py``: the same bounds,
 * the same child order and the same memo (exact values and fail-lows apart), so it
 * returns the very journey the pure planner returns.  ``planner.py`` stays the reference
 * and the fallback; the differential test (tests/bots/test_planner_fast.py) holds them
 * equal.  Python builds the priced steps and turns the answer back into a ``Journey``;
 * only the search lives here.
 *
 * search(n_towns, capital, edges, distances, target, end_bonus, limit, preference,
 *        hand, town, visited, needed_only) -> tuple of step codes, or None
 *
 *   edges[t]: the steps from town t, each a sequence whose items 2..5 are
 *             (to, kind, n, any_cards) and item 6 the payment (1 = caravan);
 *   distances: the n_towns * n_towns links between towns, row by row;
 *   target: the town card's town, or -1; end_bonus: one int per town, or None;
 *   a step code is 2 * (index of the step in edges[town]) + (1 if it pays any cards).
 *
 * None means "too big for this code" (more than 64 towns or 64 steps from a town, more
 * than 63 cards of a kind or 255 in all, values beyond int64): the caller then runs the
 * pure planner.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NK 7
#define MAXT 64
#define MAXE 64
#define MAXCARDS 255
#define MAXDEPTH 600
#define CARD_VALUE 100
#define D_SPAN 1000
#define CARAVAN_PAY 1

typedef struct {
    int to, kind, n, any, caravan;
} PEdge;

typedef struct {
    uint64_t vis;
    uint64_t packed; /* hand 7 x 6 bits, owed 8 bits, town 7 bits, bit 63 = used */
    int64_t value;
    int16_t edge;
    uint8_t any;
    uint8_t exact;
} Entry;

typedef struct {
    int64_t bound, gain;
    int i, any;
} Child;

typedef struct {
    int nt, capital, limit, needed_only, max_cards, stride;
    int64_t pref[NK];
    int keep_order[NK];  /* most preferred first: the cards kept at the discard */
    int cheap_order[NK]; /* least preferred first: the cards owed are given */
    int nedges[MAXT];
    PEdge edges[MAXT][MAXE];
    int64_t place[MAXT];
    int64_t *ceil;    /* nt x stride */
    uint64_t *within; /* nt x stride */
    int nearest_len[MAXT];
    int nearest_cost[MAXT][MAXT];
    int nearest_town[MAXT][MAXT];
    int n_entry;
    int entry_cost[MAXT + 1];
    uint64_t entry_mask[MAXT + 1];
    int64_t unit;
    uint64_t all_towns;
    Entry *table;
    size_t cap, count;
    int failed; /* 1: out of memory or too deep */
} Search;

static inline uint64_t
pack(int town, const int *hand, int owed)
{
    uint64_t p = 0;
    for (int k = 0; k < NK; k++)
        p |= (uint64_t)hand[k] << (6 * k);
    p |= (uint64_t)owed << 42;
    p |= (uint64_t)town << 50;
    return p | ((uint64_t)1 << 63);
}

static inline size_t
slot_of(const Search *s, uint64_t vis, uint64_t packed)
{
    uint64_t h = vis * 0x9E3779B97F4A7C15ULL ^ packed;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    return (size_t)h & (s->cap - 1);
}

static Entry *
find(const Search *s, uint64_t vis, uint64_t packed)
{
    size_t i = slot_of(s, vis, packed);
    for (;;) {
        Entry *e = &s->table[i];
        if (!e->packed)
            return NULL;
        if (e->packed == packed && e->vis == vis)
            return e;
        i = (i + 1) & (s->cap - 1);
    }
}

static int
grow(Search *s)
{
    size_t old_cap = s->cap;
    Entry *old = s->table;
    size_t cap = old_cap * 2;
    Entry *table = calloc(cap, sizeof(Entry));
    if (!table)
        return -1;
    s->table = table;
    s->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].packed)
            continue;
        size_t j = slot_of(s, old[i].vis, old[i].packed);
        while (table[j].packed)
            j = (j + 1) & (cap - 1);
        table[j] = old[i];
    }
    free(old);
    return 0;
}

static void
store(Search *s, uint64_t vis, uint64_t packed, int64_t value, int edge, int any, int exact)
{
    Entry *e = find(s, vis, packed);
    if (!e) {
        if ((s->count + 1) * 2 > s->cap && grow(s) < 0) {
            s->failed = 1;
            return;
        }
        size_t i = slot_of(s, vis, packed);
        while (s->table[i].packed)
            i = (i + 1) & (s->cap - 1);
        e = &s->table[i];
        e->vis = vis;
        e->packed = packed;
        s->count++;
    }
    e->value = value;
    e->edge = (int16_t)edge;
    e->any = (uint8_t)any;
    e->exact = (uint8_t)exact;
}

static int64_t
usefulness(const Search *s, const int *hand)
{
    int left = s->limit;
    int64_t total = 0;
    for (int j = 0; j < NK; j++) {
        int k = s->keep_order[j];
        int take = left < hand[k] ? left : hand[k];
        total += (int64_t)take * (CARD_VALUE + s->pref[k]);
        left -= take;
        if (left == 0)
            break;
    }
    return total;
}

static void
kept(const Search *s, const int *hand, int owed, int *out)
{
    memcpy(out, hand, sizeof(int) * NK);
    for (int j = 0; j < NK; j++) {
        if (!owed)
            break;
        int k = s->cheap_order[j];
        int take = owed < out[k] ? owed : out[k];
        out[k] -= take;
        owed -= take;
    }
}

static inline int64_t
useful(const Search *s, const int *hand, int owed)
{
    int h[NK];
    kept(s, hand, owed, h);
    return usefulness(s, h);
}

static int64_t
more_towns(const Search *s, int to, int left, uint64_t open_towns)
{
    uint64_t cand = s->within[to * s->stride + left] & open_towns;
    if (!cand)
        return 0;
    int first = 0;
    for (int j = 0; j < s->nearest_len[to]; j++) {
        if (cand >> s->nearest_town[to][j] & 1) {
            first = s->nearest_cost[to][j];
            break;
        }
    }
    int64_t m = 0;
    int64_t budget = left;
    for (int j = 0; j < s->n_entry; j++) {
        int c = s->entry_cost[j];
        int64_t k = __builtin_popcountll(cand & s->entry_mask[j]);
        if (k) {
            int64_t can = budget / c;
            int64_t take = k < can ? k : can;
            m += take;
            budget -= take * c;
            if (take < k)
                break;
        }
    }
    int64_t cap = (int64_t)left - first + 1;
    return m < cap ? m : cap;
}

static int
child_before(const Child *a, const Child *b)
{
    if (a->gain != b->gain)
        return a->gain > b->gain;
    if (a->bound != b->bound)
        return a->bound > b->bound;
    if (a->i != b->i)
        return a->i < b->i;
    return a->any < b->any;
}

static int64_t
best(Search *s, int town, const int *hand, int owed, uint64_t visited, int64_t alpha,
     int depth)
{
    if (s->failed)
        return alpha;
    if (depth > MAXDEPTH) {
        s->failed = 1;
        return alpha;
    }
    int total = 0;
    for (int k = 0; k < NK; k++)
        total += hand[k];
    int left = total - owed;
    uint64_t key_vis = visited & s->within[town * s->stride + left];
    uint64_t key = pack(town, hand, owed);
    Entry *hit = find(s, key_vis, key);
    if (hit && (hit->exact || hit->value <= alpha))
        return hit->value;
    int64_t top = s->place[town] + useful(s, hand, owed);
    int64_t floor = top > alpha ? top : alpha;
    int choice = -1, choice_any = 0;
    int capital = s->capital;
    int64_t unit = s->unit;
    uint64_t open_towns = s->all_towns & ~visited;
    Child children[2 * s->nedges[town] + 1]; /* on the stack, as deep as the journey */
    int nc = 0;
    for (int i = 0; i < s->nedges[town]; i++) {
        const PEdge *e = &s->edges[town][i];
        int to = e->to;
        uint64_t bit = to == capital ? 0 : (uint64_t)1 << to;
        int64_t gain = (open_towns & bit) ? unit : 0;
        uint64_t rest = open_towns & ~bit;
        int k = e->kind, n = e->n;
        if (hand[k] >= n && left >= n) {
            int child[NK];
            memcpy(child, hand, sizeof child);
            child[k] -= n;
            int64_t bound = gain + more_towns(s, to, left - n, rest) * unit
                            + s->ceil[to * s->stride + left - n] + useful(s, child, owed);
            if (bound > floor)
                children[nc++] = (Child){bound, gain, i, 0};
        }
        int size = e->any;
        if (size && left >= size
            && !(s->needed_only && e->caravan && hand[k] >= n)) {
            int64_t bound = gain + more_towns(s, to, left - size, rest) * unit
                            + s->ceil[to * s->stride + left - size]
                            + useful(s, hand, owed + size);
            if (bound > floor)
                children[nc++] = (Child){bound, gain, i, 1};
        }
    }
    for (int a = 1; a < nc; a++) {
        Child c = children[a];
        int b = a - 1;
        while (b >= 0 && child_before(&c, &children[b])) {
            children[b + 1] = children[b];
            b--;
        }
        children[b + 1] = c;
    }
    for (int j = 0; j < nc; j++) {
        const Child *c = &children[j];
        int64_t threshold = top > alpha ? top : alpha;
        if (c->bound <= threshold)
            continue;
        const PEdge *e = &s->edges[town][c->i];
        uint64_t bit = e->to == capital ? 0 : (uint64_t)1 << e->to;
        int64_t v;
        if (c->any) {
            v = best(s, e->to, hand, owed + e->any, visited | bit, threshold - c->gain,
                     depth + 1);
        }
        else {
            int child[NK];
            memcpy(child, hand, sizeof child);
            child[e->kind] -= e->n;
            v = best(s, e->to, child, owed, visited | bit, threshold - c->gain, depth + 1);
        }
        v += c->gain;
        if (v > threshold) {
            top = v;
            choice = c->i;
            choice_any = c->any;
        }
    }
    if (s->failed)
        return alpha;
    if (top > alpha) {
        store(s, key_vis, key, top, choice, choice_any, 1);
        return top;
    }
    store(s, key_vis, key, alpha, -1, 0, 0);
    return alpha;
}

/* Cheapest step prices: per town, the towns reachable with c cards at most, and the
 * others by cost; the towns grouped by the cheapest step entering them (``_reach``). */
static void
reach(Search *s)
{
    int nt = s->nt, mc = s->max_cards;
    for (int start = 0; start < nt; start++) {
        int cost[MAXT], done[MAXT];
        for (int t = 0; t < nt; t++) {
            cost[t] = mc + 1;
            done[t] = 0;
        }
        cost[start] = 0;
        for (;;) {
            int t = -1;
            for (int u = 0; u < nt; u++)
                if (!done[u] && cost[u] <= mc && (t < 0 || cost[u] < cost[t]))
                    t = u;
            if (t < 0)
                break;
            done[t] = 1;
            for (int i = 0; i < s->nedges[t]; i++) {
                const PEdge *e = &s->edges[t][i];
                int p = e->any ? (e->n < e->any ? e->n : e->any) : e->n;
                if (cost[t] + p < cost[e->to])
                    cost[e->to] = cost[t] + p;
            }
        }
        uint64_t *masks = &s->within[start * s->stride];
        for (int c = 0; c <= mc; c++)
            masks[c] = 0;
        int len = 0;
        for (int c = 0; c <= mc; c++) {
            for (int t = 0; t < nt; t++) {
                if (t != start && cost[t] == c) {
                    masks[c] |= (uint64_t)1 << t;
                    s->nearest_cost[start][len] = c;
                    s->nearest_town[start][len] = t;
                    len++;
                }
            }
        }
        s->nearest_len[start] = len;
        uint64_t acc = (uint64_t)1 << start;
        for (int c = 0; c <= mc; c++) {
            acc |= masks[c];
            masks[c] = acc;
        }
    }
    int cheapest_in[MAXT];
    for (int t = 0; t < nt; t++)
        cheapest_in[t] = 0;
    for (int t = 0; t < nt; t++) {
        for (int i = 0; i < s->nedges[t]; i++) {
            const PEdge *e = &s->edges[t][i];
            int p = e->any ? (e->n < e->any ? e->n : e->any) : e->n;
            if (!cheapest_in[e->to] || p < cheapest_in[e->to])
                cheapest_in[e->to] = p;
        }
    }
    s->n_entry = 0;
    /* sorted by cost: the distinct costs in increasing order */
    int last = 0;
    for (;;) {
        int next = -1;
        for (int t = 0; t < nt; t++)
            if (cheapest_in[t] > last && (next < 0 || cheapest_in[t] < next))
                next = cheapest_in[t];
        if (next < 0)
            break;
        uint64_t mask = 0;
        for (int t = 0; t < nt; t++)
            if (cheapest_in[t] == next)
                mask |= (uint64_t)1 << t;
        s->entry_cost[s->n_entry] = next;
        s->entry_mask[s->n_entry] = mask;
        s->n_entry++;
        last = next;
    }
}

/* An int of a sequence item, or -1 with *bad set when it is not a small int. */
static long long
item_ll(PyObject *seq, Py_ssize_t i, int *bad)
{
    PyObject *o = PySequence_GetItem(seq, i);
    if (!o) {
        *bad = 1;
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    Py_DECREF(o);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        *bad = 1;
        return -1;
    }
    return v;
}

static PyObject *
planner_search(PyObject *Py_UNUSED(self), PyObject *args)
{
    int nt, capital, target, limit, town, needed_only;
    PyObject *edges, *distances, *bonus_obj, *pref_obj, *hand_obj, *visited_obj;
    if (!PyArg_ParseTuple(args, "iiOOiOiOOiOp", &nt, &capital, &edges, &distances, &target,
                          &bonus_obj, &limit, &pref_obj, &hand_obj, &town, &visited_obj,
                          &needed_only))
        return NULL;
    if (nt < 1 || nt > MAXT || capital < 0 || capital >= nt || town < 0 || town >= nt
        || target >= nt || target < -1)
        Py_RETURN_NONE;
    int bad = 0;
    Search *s = calloc(1, sizeof(Search));
    if (!s)
        return PyErr_NoMemory();
    PyObject *result = NULL;
    int64_t dist[MAXT * MAXT];
    int64_t bonus[MAXT];
    int hand[NK];
    uint64_t visited;
    s->nt = nt;
    s->capital = capital;
    s->limit = limit;
    s->needed_only = needed_only;
    if (PySequence_Size(pref_obj) != NK || PySequence_Size(hand_obj) != NK
        || PySequence_Size(edges) != nt || PySequence_Size(distances) != nt * nt)
        goto unsupported;
    int64_t max_pref = 0;
    int total = 0;
    for (int k = 0; k < NK; k++) {
        long long p = item_ll(pref_obj, k, &bad);
        long long h = item_ll(hand_obj, k, &bad);
        if (bad || p < -(1LL << 20) || p > (1LL << 20) || h < 0 || h > 63)
            goto unsupported;
        s->pref[k] = p;
        if (k == 0 || p > max_pref)
            max_pref = p;
        hand[k] = (int)h;
        total += (int)h;
    }
    if (total > MAXCARDS || limit < 0 || limit > MAXCARDS)
        goto unsupported;
    s->max_cards = total;
    s->stride = total + 1;
    /* keep_order: by -preference, stable; cheap_order: by (preference, kind) */
    for (int k = 0; k < NK; k++)
        s->keep_order[k] = s->cheap_order[k] = k;
    for (int a = 1; a < NK; a++) {
        int x = s->keep_order[a], b = a - 1;
        while (b >= 0 && s->pref[s->keep_order[b]] < s->pref[x]) {
            s->keep_order[b + 1] = s->keep_order[b];
            b--;
        }
        s->keep_order[b + 1] = x;
        int y = s->cheap_order[a];
        b = a - 1;
        while (b >= 0 && s->pref[s->cheap_order[b]] > s->pref[y]) {
            s->cheap_order[b + 1] = s->cheap_order[b];
            b--;
        }
        s->cheap_order[b + 1] = y;
    }
    for (int i = 0; i < nt * nt; i++) {
        long long d = item_ll(distances, i, &bad);
        if (bad || d < 0 || d > 100000)
            goto unsupported;
        dist[i] = d;
    }
    int64_t max_bonus = 0;
    if (bonus_obj != Py_None) {
        if (PySequence_Size(bonus_obj) != nt)
            goto unsupported;
        for (int t = 0; t < nt; t++) {
            long long b = item_ll(bonus_obj, t, &bad);
            if (bad || b < 0 || b > (1LL << 40))
                goto unsupported;
            bonus[t] = b;
            if (b > max_bonus)
                max_bonus = b;
        }
    }
    else {
        for (int t = 0; t < nt; t++)
            bonus[t] = 0;
    }
    {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(visited_obj, &overflow);
        if (overflow || v < 0 || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            goto unsupported;
        }
        visited = (uint64_t)v;
    }
    for (int t = 0; t < nt; t++) {
        PyObject *row = PySequence_GetItem(edges, t);
        if (!row) {
            PyErr_Clear();
            goto unsupported;
        }
        Py_ssize_t ne = PySequence_Size(row);
        if (ne < 0 || ne > MAXE) {
            PyErr_Clear();
            Py_DECREF(row);
            goto unsupported;
        }
        s->nedges[t] = (int)ne;
        for (Py_ssize_t i = 0; i < ne; i++) {
            PyObject *e = PySequence_GetItem(row, i);
            if (!e) {
                PyErr_Clear();
                Py_DECREF(row);
                goto unsupported;
            }
            PEdge *pe = &s->edges[t][i];
            pe->to = (int)item_ll(e, 2, &bad);
            pe->kind = (int)item_ll(e, 3, &bad);
            pe->n = (int)item_ll(e, 4, &bad);
            pe->any = (int)item_ll(e, 5, &bad);
            pe->caravan = item_ll(e, 6, &bad) == CARAVAN_PAY;
            Py_DECREF(e);
            if (bad || pe->to < 0 || pe->to >= nt || pe->kind < 0 || pe->kind >= NK
                || pe->n < 1 || pe->n > MAXCARDS || pe->any < 0 || pe->any > MAXCARDS) {
                Py_DECREF(row);
                goto unsupported;
            }
        }
        Py_DECREF(row);
    }
    /* The value scale of ``_Search.__init__``. */
    int64_t u_span = (int64_t)total * (CARD_VALUE + max_pref) + max_bonus + 1;
    s->unit = u_span * D_SPAN;
    s->all_towns = (nt == 64 ? ~(uint64_t)0 : (((uint64_t)1 << nt) - 1))
                   & ~((uint64_t)1 << capital);
    s->ceil = malloc(sizeof(int64_t) * nt * s->stride);
    s->within = malloc(sizeof(uint64_t) * nt * s->stride);
    s->cap = 1024;
    s->table = calloc(s->cap, sizeof(Entry));
    if (!s->ceil || !s->within || !s->table) {
        PyErr_NoMemory();
        goto done;
    }
    for (int t = 0; t < nt; t++)
        s->place[t] = (D_SPAN - 1 - (target < 0 ? 0 : dist[t * nt + target])) * u_span
                      + bonus[t];
    for (int t = 0; t < nt; t++) {
        for (int c = 0; c <= total; c++) {
            int64_t v;
            if (bonus_obj == Py_None) {
                int64_t d = target < 0 ? 0 : dist[t * nt + target] - c;
                v = (D_SPAN - 1 - (d > 0 ? d : 0)) * u_span;
            }
            else {
                int any = 0;
                v = 0;
                for (int u = 0; u < nt; u++) {
                    if (dist[t * nt + u] <= c && (!any || s->place[u] > v)) {
                        v = s->place[u];
                        any = 1;
                    }
                }
                if (!any)
                    goto unsupported;
            }
            s->ceil[t * s->stride + c] = v;
        }
    }
    reach(s);
    best(s, town, hand, 0, visited, -1, 0);
    if (s->failed)
        goto unsupported;
    /* Walk the best journey through the memo, as ``plan_journey`` does. */
    result = PyList_New(0);
    if (!result)
        goto done;
    {
        int here = town, owed = 0, h[NK];
        uint64_t seen = visited;
        memcpy(h, hand, sizeof h);
        for (;;) {
            int sum = 0;
            for (int k = 0; k < NK; k++)
                sum += h[k];
            Entry *e = find(s, seen & s->within[here * s->stride + sum - owed],
                            pack(here, h, owed));
            if (!e) {
                Py_CLEAR(result);
                PyErr_SetString(PyExc_RuntimeError, "planner: the journey left the memo");
                goto done;
            }
            if (e->edge < 0)
                break;
            const PEdge *pe = &s->edges[here][e->edge];
            PyObject *code = PyLong_FromLong(2 * e->edge + e->any);
            if (!code || PyList_Append(result, code) < 0) {
                Py_XDECREF(code);
                Py_CLEAR(result);
                goto done;
            }
            Py_DECREF(code);
            if (e->any)
                owed += pe->any;
            else
                h[pe->kind] -= pe->n;
            if (pe->to != capital)
                seen |= (uint64_t)1 << pe->to;
            here = pe->to;
        }
    }
    goto done;
unsupported:
    PyErr_Clear();
    Py_CLEAR(result);
    result = Py_None;
    Py_INCREF(result);
done:
    free(s->ceil);
    free(s->within);
    free(s->table);
    free(s);
    return result;
}

static PyMethodDef methods[] = {
    {"search", planner_search, METH_VARARGS,
     "The planner's search: the step codes of the best journey, or None when the "
     "problem is too big for the compiled code."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_planner",
    "The Elfenland movement planner's search, compiled (see planner.py).", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__planner(void)
{
    return PyModule_Create(&module);
}
