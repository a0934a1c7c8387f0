/* The Elfenland movement planner's search, compiled (issue #16).
 *
 * A line-by-line port of ``_reach`` and ``_Search`` in ``planner.py``: the same bounds,
 * the same child order and the same memo (exact values and fail-lows apart), so it
 * returns the very journey the pure planner returns.  ``planner.py`` stays the reference
 * and the fallback; the differential test (tests/bots/test_planner_fast.py) holds them
 * equal.
 *
 * tables(links, distances, capital, costs) -> a board's tables, read once;
 * plan(tables, counters, obstacles, wild_kinds, ...) -> the best journey's facts, or
 *     None when the problem is too big for this code (more than 64 towns or 64 steps
 *     from a town, more than 63 cards of a kind or 255 in all, values beyond int64):
 *     the caller then runs the pure planner;
 * edges(tables, counters, obstacles, wild_kinds, ...) -> the priced steps ``plan``
 *     searches (``planner.edges_of``'s, for the tests);
 * walks(distances, n), outlook(walks, start, todo, budget) -> ``outlook.outlook``.
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

typedef struct {
    int to, kind, n, any, caravan;
} PEdge;

/* What ``plan`` reports of a step besides its price: the route, its direction, how it
 * is paid (``Pay``) and whether it is a wild step (a counter assumed placed). */
typedef struct {
    int route, dir, pay, wild;
} PMeta;

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
    int monotone; /* every card kept adds value (CARD_VALUE + preference >= 0) */
    int64_t pref[NK];
    int keep_order[NK];  /* most preferred first: the cards kept at the discard */
    int cheap_order[NK]; /* least preferred first: the cards owed are given */
    int nedges[MAXT];
    PEdge edges[MAXT][MAXE];
    /* The cheapest price (cards) of a step from t to each town it reaches, one entry a
     * town: what ``reach_from`` relaxes (parallel steps of several kinds are one). */
    int nlinks[MAXT];
    int link_to[MAXT][MAXT], link_cost[MAXT][MAXT];
    PMeta meta[MAXT][MAXE]; /* filled by ``plan`` only */
    int64_t place[MAXT];
    int64_t *ceil;    /* nt x stride */
    uint64_t *within; /* nt x stride */
    int nearest_len[MAXT];
    int nearest_cost[MAXT][MAXT];
    int nearest_town[MAXT][MAXT];
    uint64_t reached; /* the towns whose within and nearest tables are filled */
    int n_entry;
    int entry_cost[MAXT + 1];
    uint64_t entry_mask[MAXT + 1];
    int64_t unit;
    uint64_t all_towns;
    Entry *table;
    size_t cap, count;
    /* the slots of table the entries fill, in the order stored (count of them): what
     * emptying the table for the next search clears, rather than all of it */
    uint32_t *slots;
    int failed; /* 1: out of memory or too deep */
} Search;

static inline const uint64_t *within_of(Search *s, int t);

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
    uint32_t *slots = malloc(sizeof(uint32_t) * (cap / 2 + 1));
    if (!table || !slots || cap > UINT32_MAX) {
        free(table);
        free(slots);
        return -1;
    }
    s->table = table;
    s->cap = cap;
    for (size_t n = 0; n < s->count; n++) {
        const Entry *e = &old[s->slots[n]];
        size_t j = slot_of(s, e->vis, e->packed);
        while (table[j].packed)
            j = (j + 1) & (cap - 1);
        table[j] = *e;
        slots[n] = (uint32_t)j;
    }
    free(old);
    free(s->slots);
    s->slots = slots;
    (void)old_cap;
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
        s->slots[s->count++] = (uint32_t)i;
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
more_towns(Search *s, int to, int left, uint64_t open_towns)
{
    uint64_t cand = within_of(s, to)[left] & open_towns;
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
    uint64_t key_vis = visited & within_of(s, town)[left];
    uint64_t key = pack(town, hand, owed);
    Entry *hit = find(s, key_vis, key);
    if (hit && (hit->exact || hit->value <= alpha))
        return hit->value;
    int64_t here_useful = useful(s, hand, owed);
    int64_t top = s->place[town] + here_useful;
    int64_t floor = top > alpha ? top : alpha;
    /* With every card worth something (``monotone``), a child keeps no more than this
     * node could: a child whose bound with this node's cards kept is no better than the
     * floor is dropped without working out its own. */
    int64_t most_useful = s->monotone ? here_useful : INT64_MAX / 4;
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
            int64_t bound = gain + more_towns(s, to, left - n, rest) * unit
                            + s->ceil[to * s->stride + left - n];
            if (bound + most_useful > floor) {
                if (!owed && left <= s->limit) {
                    /* every card is kept, before and after: the step's cards are
                     * all that its child keeps less */
                    bound += here_useful - (int64_t)n * (CARD_VALUE + s->pref[k]);
                }
                else {
                    int child[NK];
                    memcpy(child, hand, sizeof child);
                    child[k] -= n;
                    bound += useful(s, child, owed);
                }
                if (bound > floor)
                    children[nc++] = (Child){bound, gain, i, 0};
            }
        }
        int size = e->any;
        if (size && left >= size
            && !(s->needed_only && e->caravan && hand[k] >= n)) {
            int64_t bound = gain + more_towns(s, to, left - size, rest) * unit
                            + s->ceil[to * s->stride + left - size];
            if (bound + most_useful > floor) {
                bound += useful(s, hand, owed + size);
                if (bound > floor)
                    children[nc++] = (Child){bound, gain, i, 1};
            }
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
 * others by cost; the towns grouped by the cheapest step entering them (``_reach``).
 * Every step costs at least one card and costs above the hand's cards do not matter, so
 * Dijkstra's queue is a bucket per cost (a bit mask of towns): a start costs its edges
 * and its cards, not the square of the towns. */
static void
reach_from(Search *s, int start)
{
    int nt = s->nt, mc = s->max_cards;
    {
        int cost[MAXT];
        uint64_t bucket[MAXCARDS + 1], fin[MAXCARDS + 1];
        for (int t = 0; t < nt; t++)
            cost[t] = mc + 1;
        for (int c = 0; c <= mc; c++)
            bucket[c] = fin[c] = 0;
        cost[start] = 0;
        bucket[0] = (uint64_t)1 << start;
        for (int c = 0; c <= mc; c++) {
            while (bucket[c]) {
                int t = __builtin_ctzll(bucket[c]);
                bucket[c] &= bucket[c] - 1;
                if (t != start)
                    fin[c] |= (uint64_t)1 << t;
                for (int i = 0; i < s->nlinks[t]; i++) {
                    int to = s->link_to[t][i], next = c + s->link_cost[t][i];
                    if (next < cost[to]) {
                        if (cost[to] <= mc)
                            bucket[cost[to]] &= ~((uint64_t)1 << to);
                        cost[to] = next;
                        bucket[next] |= (uint64_t)1 << to;
                    }
                }
            }
        }
        uint64_t *masks = &s->within[start * s->stride];
        uint64_t acc = (uint64_t)1 << start;
        int len = 0;
        for (int c = 0; c <= mc; c++) {
            for (uint64_t m = fin[c]; m; m &= m - 1) {
                s->nearest_cost[start][len] = c;
                s->nearest_town[start][len] = __builtin_ctzll(m);
                len++;
            }
            acc |= fin[c];
            masks[c] = acc;
        }
        s->nearest_len[start] = len;
    }
    s->reached |= (uint64_t)1 << start;
}

/* The within and nearest tables of town t, worked out when the search first needs them:
 * a search reaches few of the towns when the cards are few. */
static inline const uint64_t *
within_of(Search *s, int t)
{
    if (!(s->reached >> t & 1))
        reach_from(s, t);
    return &s->within[t * s->stride];
}

static void
entries(Search *s)
{
    int nt = s->nt;
    s->reached = 0;
    for (int t = 0; t < nt; t++) {
        int slot[MAXT];
        for (int u = 0; u < nt; u++)
            slot[u] = -1;
        int n = 0;
        for (int i = 0; i < s->nedges[t]; i++) {
            const PEdge *e = &s->edges[t][i];
            int p = e->any ? (e->n < e->any ? e->n : e->any) : e->n;
            if (slot[e->to] < 0) {
                slot[e->to] = n;
                s->link_to[t][n] = e->to;
                s->link_cost[t][n] = p;
                n++;
            }
            else if (p < s->link_cost[t][slot[e->to]])
                s->link_cost[t][slot[e->to]] = p;
        }
        s->nlinks[t] = n;
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

/* One Search kept for reuse: the struct is a few hundred kilobytes, and zeroing or
 * mapping that much at every call cost more than a small search.  A call holds the GIL
 * from start to end unless a sequence it reads runs Python code; a call that finds the
 * spare taken then allocates its own. */
static Search *spare;
static int spare_busy;

/* The spare keeps its memo's table between searches, emptied slot by slot, up to this
 * many entries (a bigger one, grown by a long search, is freed): zeroing a new table
 * for each search was a tenth of a quick rollout's CPU. */
#define KEEP_TABLE 8192

static Search *
acquire(void)
{
    Search *s = NULL;
    if (!spare_busy) {
        if (!spare) {
            spare = malloc(sizeof(Search));
            if (spare) {
                spare->table = NULL;
                spare->slots = NULL;
                spare->cap = spare->count = 0;
            }
        }
        if (spare) {
            spare_busy = 1;
            s = spare;
        }
    }
    if (!s) {
        s = malloc(sizeof(Search));
        if (!s)
            return NULL;
        s->table = NULL;
        s->slots = NULL;
        s->cap = s->count = 0;
    }
    s->ceil = NULL;
    s->within = NULL;
    s->failed = 0;
    return s;
}

/* The memo's table emptied: kept (its filled slots cleared) by the spare, else freed. */
static void
empty_table(Search *s, int keep)
{
    if (keep && s->table && s->cap <= KEEP_TABLE) {
        for (size_t n = 0; n < s->count; n++)
            s->table[s->slots[n]].packed = 0;
    }
    else {
        free(s->table);
        free(s->slots);
        s->table = NULL;
        s->slots = NULL;
        s->cap = 0;
    }
    s->count = 0;
}

static void
release(Search *s)
{
    free(s->ceil);
    free(s->within);
    s->ceil = NULL;
    s->within = NULL;
    empty_table(s, s == spare);
    if (s == spare)
        spare_busy = 0;
    else
        free(s);
}

/* keep_order: by -preference, stable; cheap_order: by (preference, kind). */
static void
orders(Search *s)
{
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
}

/* The rest of ``_Search.__init__`` once the edges, preference and cards are in: the
 * value scale, the place and ceiling tables, the memo, and ``_reach``'s tables.
 * 0, -1 (unsupported) or -2 (out of memory, the error set). */
static int
setup(Search *s, const int64_t *dist, const int64_t *bonus, int has_bonus, int target,
      int total)
{
    int nt = s->nt;
    int64_t max_pref = s->pref[0], max_bonus = 0;
    for (int k = 1; k < NK; k++)
        if (s->pref[k] > max_pref)
            max_pref = s->pref[k];
    for (int t = 0; t < nt; t++)
        if (bonus[t] > max_bonus)
            max_bonus = bonus[t];
    s->max_cards = total;
    s->stride = total + 1;
    int64_t u_span = (int64_t)total * (CARD_VALUE + max_pref) + max_bonus + 1;
    s->unit = u_span * D_SPAN;
    s->all_towns = (nt == 64 ? ~(uint64_t)0 : (((uint64_t)1 << nt) - 1))
                   & ~((uint64_t)1 << s->capital);
    s->ceil = malloc(sizeof(int64_t) * nt * s->stride);
    s->within = malloc(sizeof(uint64_t) * nt * s->stride);
    empty_table(s, 1);
    if (!s->table || !s->slots) {
        empty_table(s, 0);
        s->cap = 1024;
        s->table = calloc(s->cap, sizeof(Entry));
        s->slots = malloc(sizeof(uint32_t) * (s->cap / 2 + 1));
    }
    if (!s->ceil || !s->within || !s->table || !s->slots) {
        PyErr_NoMemory();
        return -2;
    }
    for (int t = 0; t < nt; t++)
        s->place[t] = (D_SPAN - 1 - (target < 0 ? 0 : dist[t * nt + target])) * u_span
                      + bonus[t];
    for (int t = 0; t < nt; t++) {
        for (int c = 0; c <= total; c++) {
            int64_t v;
            if (!has_bonus) {
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
                    return -1;
            }
            s->ceil[t * s->stride + c] = v;
        }
    }
    entries(s);
    return 0;
}

/* The preference and hand (NK ints each, small): their sum in *total; -1 if unsupported. */
static int
read_cards(Search *s, PyObject *pref_obj, PyObject *hand_obj, int *hand, int *total)
{
    int bad = 0;
    if (PySequence_Size(pref_obj) != NK || PySequence_Size(hand_obj) != NK)
        return -1;
    *total = 0;
    for (int k = 0; k < NK; k++) {
        long long p = item_ll(pref_obj, k, &bad);
        long long h = item_ll(hand_obj, k, &bad);
        if (bad || p < -(1LL << 20) || p > (1LL << 20) || h < 0 || h > 63)
            return -1;
        s->pref[k] = p;
        hand[k] = (int)h;
        *total += (int)h;
    }
    if (*total > MAXCARDS || s->limit < 0 || s->limit > MAXCARDS)
        return -1;
    orders(s);
    s->monotone = 1;
    for (int k = 0; k < NK; k++)
        if (CARD_VALUE + s->pref[k] < 0)
            s->monotone = 0;
    return 0;
}

/* end_bonus: None (zeros) or nt ints in [0, 2^40]; -1 if unsupported. */
static int
read_bonus(PyObject *bonus_obj, int nt, int64_t *bonus)
{
    int bad = 0;
    if (bonus_obj == Py_None) {
        for (int t = 0; t < nt; t++)
            bonus[t] = 0;
        return 0;
    }
    if (PySequence_Size(bonus_obj) != nt)
        return -1;
    for (int t = 0; t < nt; t++) {
        long long b = item_ll(bonus_obj, t, &bad);
        if (bad || b < 0 || b > (1LL << 40))
            return -1;
        bonus[t] = b;
    }
    return 0;
}

static int
read_visited(PyObject *visited_obj, uint64_t *visited)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(visited_obj, &overflow);
    if (overflow || v < 0 || (v == -1 && PyErr_Occurred()))
        return -1;
    *visited = (uint64_t)v;
    return 0;
}

/* The best journey's steps through the memo, as ``plan_journey`` walks it: the edge
 * indices and whether each pays any cards; their number, or -1 (error set). */
static int
walk(Search *s, int town, const int *hand, uint64_t visited, int *edge_of, int *any_of,
     int *town_of)
{
    int here = town, owed = 0, h[NK], len = 0;
    uint64_t seen = visited;
    memcpy(h, hand, sizeof h);
    for (;;) {
        int sum = 0;
        for (int k = 0; k < NK; k++)
            sum += h[k];
        Entry *e = find(s, seen & within_of(s, here)[sum - owed],
                        pack(here, h, owed));
        if (!e) {
            PyErr_SetString(PyExc_RuntimeError, "planner: the journey left the memo");
            return -1;
        }
        if (e->edge < 0)
            return len;
        if (len > MAXCARDS) {
            PyErr_SetString(PyExc_RuntimeError, "planner: a journey longer than its cards");
            return -1;
        }
        const PEdge *pe = &s->edges[here][e->edge];
        edge_of[len] = e->edge;
        any_of[len] = e->any;
        town_of[len] = here;
        len++;
        if (e->any)
            owed += pe->any;
        else
            h[pe->kind] -= pe->n;
        if (pe->to != s->capital)
            seen |= (uint64_t)1 << pe->to;
        here = pe->to;
    }
}

/* What a journey walked out of the memo leaves (``walk``'s steps): the cards its normal
 * payments leave, the cards its any-cards steps owe, the towns it collects anew, where
 * it ends and the towns its steps end in (a mask, the capital included). */
typedef struct {
    int left[NK], owed, new_towns, end;
    uint64_t towns;
} Walked;

static void
walked(const Search *s, int town, const int *hand, uint64_t visited, int len,
       const int *edge_of, const int *any_of, const int *town_of, Walked *w)
{
    uint64_t seen = visited;
    memcpy(w->left, hand, sizeof w->left);
    w->owed = w->new_towns = 0;
    w->end = town;
    w->towns = 0;
    for (int i = 0; i < len; i++) {
        const PEdge *pe = &s->edges[town_of[i]][edge_of[i]];
        if (any_of[i])
            w->owed += pe->any;
        else
            w->left[pe->kind] -= pe->n;
        uint64_t bit = pe->to == s->capital ? 0 : (uint64_t)1 << pe->to;
        if (bit && !(seen & bit))
            w->new_towns++;
        seen |= bit;
        w->towns |= (uint64_t)1 << pe->to;
        w->end = pe->to;
    }
}

/* ---- plan(): the search on a board's tables and the state's counters ---------------
 *
 * ``_raw_edges`` and ``_journey`` in C.  A board's links, distances and the cost table are
 * read once into a ``Tables`` capsule (``tables``); ``plan`` then builds the priced steps
 * from the counters and obstacles on the roads, searches, and returns the journey's
 * facts, so that a plan builds no Python object per edge and none per step beyond its
 * answer.  ``planner.py`` builds the ``Journey`` from them; the differential tests hold
 * it equal to the pure planner's.
 */

#define TABLES_CAPSULE "elfenland.bots._planner.tables"
#define MAXTERRAIN 16
#define MAXROUTES 1024
#define RAFT_KIND 6
#define NO_PIECE (-1)
#define PAY_NORMAL 0
#define PAY_CARAVAN 1
#define PAY_BOATMEN 2

typedef struct {
    int route, dir, to, terrain, style, rafts;
} Link;

typedef struct {
    int nt, capital, nroutes;
    int64_t dist[MAXT * MAXT];
    int nlinks[MAXT];
    Link links[MAXT][MAXE];
    int cost[NK][MAXTERRAIN]; /* -1: the kind cannot take that terrain */
} Tables;

static void
tables_free(PyObject *capsule)
{
    free(PyCapsule_GetPointer(capsule, TABLES_CAPSULE));
}

/* tables(links, distances, capital, costs) -> capsule.  links[t]: (route, direction, to,
 * terrain, style, rafts) per link of town t (``planner._board_tables``); distances: the
 * flat nt * nt links; costs[kind][terrain]: cards, or None. */
static PyObject *
planner_tables(PyObject *Py_UNUSED(self), PyObject *args)
{
    int capital;
    PyObject *links, *distances, *costs;
    if (!PyArg_ParseTuple(args, "OOiO", &links, &distances, &capital, &costs))
        return NULL;
    Py_ssize_t nt = PySequence_Size(links);
    if (nt < 1 || nt > MAXT || capital < 0 || capital >= nt
        || PySequence_Size(distances) != nt * nt || PySequence_Size(costs) != NK) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "planner tables: a board of 1 to 64 towns, "
                        "nt * nt distances and 7 rows of costs");
        return NULL;
    }
    Tables *tb = calloc(1, sizeof(Tables));
    if (!tb)
        return PyErr_NoMemory();
    int bad = 0;
    tb->nt = (int)nt;
    tb->capital = capital;
    for (Py_ssize_t i = 0; i < nt * nt; i++) {
        long long d = item_ll(distances, i, &bad);
        if (bad || d < 0 || d > 100000)
            goto invalid;
        tb->dist[i] = d;
    }
    for (int k = 0; k < NK; k++) {
        PyObject *row = PySequence_GetItem(costs, k);
        if (!row)
            goto invalid;
        Py_ssize_t n = PySequence_Size(row);
        if (n < 1 || n > MAXTERRAIN) {
            Py_DECREF(row);
            goto invalid;
        }
        for (int x = 0; x < MAXTERRAIN; x++)
            tb->cost[k][x] = -1;
        for (Py_ssize_t x = 0; x < n; x++) {
            PyObject *c = PySequence_GetItem(row, x);
            if (!c) {
                Py_DECREF(row);
                goto invalid;
            }
            if (c != Py_None) {
                int overflow = 0;
                long v = PyLong_AsLongAndOverflow(c, &overflow);
                if (overflow || v < 1 || v > MAXCARDS) {
                    Py_DECREF(c);
                    Py_DECREF(row);
                    goto invalid;
                }
                tb->cost[k][x] = (int)v;
            }
            Py_DECREF(c);
        }
        Py_DECREF(row);
    }
    for (int t = 0; t < nt; t++) {
        PyObject *row = PySequence_GetItem(links, t);
        if (!row)
            goto invalid;
        Py_ssize_t n = PySequence_Size(row);
        if (n < 0 || n > MAXE) {
            Py_DECREF(row);
            goto invalid;
        }
        tb->nlinks[t] = (int)n;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *l = PySequence_GetItem(row, i);
            if (!l) {
                Py_DECREF(row);
                goto invalid;
            }
            Link *k = &tb->links[t][i];
            k->route = (int)item_ll(l, 0, &bad);
            k->dir = (int)item_ll(l, 1, &bad);
            k->to = (int)item_ll(l, 2, &bad);
            k->terrain = (int)item_ll(l, 3, &bad);
            k->style = (int)item_ll(l, 4, &bad);
            k->rafts = (int)item_ll(l, 5, &bad);
            Py_DECREF(l);
            if (bad || k->route < 0 || k->route >= MAXROUTES || k->dir < 0 || k->dir > 1
                || k->to < 0 || k->to >= nt || k->terrain < 0 || k->terrain >= MAXTERRAIN
                || k->style < 0 || k->style > 3 || k->rafts < 0 || k->rafts > MAXCARDS) {
                Py_DECREF(row);
                goto invalid;
            }
            if (k->route + 1 > tb->nroutes)
                tb->nroutes = k->route + 1;
        }
        Py_DECREF(row);
    }
    PyObject *capsule = PyCapsule_New(tb, TABLES_CAPSULE, tables_free);
    if (!capsule)
        free(tb);
    return capsule;
invalid:
    free(tb);
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError, "planner tables: a link, distance or cost out of "
                    "range");
    return NULL;
}

/* A list of small ints (route_counter, route_obstacle) into out[0..n); -1 if it is not
 * n ints in [-1, 127] (nothing set), -2 if it is no sequence (a TypeError set). */
static int
read_pieces(PyObject *seq, int n, int *out)
{
    PyObject *fast = PySequence_Fast(seq, "the counters and obstacles: a sequence");
    if (!fast)
        return -2;
    if (PySequence_Fast_GET_SIZE(fast) < n) {
        Py_DECREF(fast);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (int i = 0; i < n; i++) {
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(items[i], &overflow);
        if (overflow || v < -1 || v > 127 || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return 0;
}

static int
add_edge(Search *s, int t, const Link *l, int kind, int n, int any, int pay, int wild)
{
    int i = s->nedges[t];
    if (i >= MAXE || n < 1 || n > MAXCARDS || any < 0 || any > MAXCARDS)
        return -1;
    s->edges[t][i] = (PEdge){l->to, kind, n, any, pay == PAY_CARAVAN};
    s->meta[t][i] = (PMeta){l->route, l->dir, pay, wild};
    s->nedges[t] = i + 1;
    return 0;
}

/* ``_raw_edges``: the steps from every town priced by the counters and obstacles. */
static int
build_edges(Search *s, const Tables *tb, const int *counters, const int *obstacles,
            const int *wild, int nwild, int caravan, int obstacle_any, int boatmen,
            int magnum, int nebulae)
{
    for (int t = 0; t < tb->nt; t++) {
        s->nedges[t] = 0;
        for (int i = 0; i < tb->nlinks[t]; i++) {
            const Link *l = &tb->links[t][i];
            int ok = 0;
            if (l->style == 0) {
                int kind = counters[l->route];
                if (kind == NO_PIECE) {
                    for (int w = 0; w < nwild; w++) {
                        int n = tb->cost[wild[w]][l->terrain];
                        if (n > 0 && add_edge(s, t, l, wild[w], n, 0, PAY_NORMAL, 1) < 0)
                            return -1;
                    }
                    continue;
                }
                if (kind < 0 || kind >= NK)
                    return -1;
                int n = tb->cost[kind][l->terrain];
                if (n < 0)
                    continue;
                if (obstacles[l->route] != NO_PIECE)
                    ok = add_edge(s, t, l, kind, n + 1, obstacle_any, PAY_CARAVAN, 0);
                else
                    ok = add_edge(s, t, l, kind, n, caravan, PAY_CARAVAN, 0);
            }
            else if (l->style == 1)
                ok = add_edge(s, t, l, RAFT_KIND, l->rafts, 0, PAY_NORMAL, 0);
            else if (l->style == 2)
                ok = add_edge(s, t, l, RAFT_KIND, magnum, 0, PAY_NORMAL, 0);
            else
                ok = add_edge(s, t, l, RAFT_KIND, nebulae, boatmen, PAY_BOATMEN, 0);
            if (ok < 0)
                return -1;
        }
    }
    return 0;
}

/* plan(tables, counters, obstacles, wild_kinds, caravan, obstacle_any, boatmen, magnum,
 *      nebulae, target, end_bonus, limit, preference, hand, town, visited, needed_only)
 *   -> (steps, new_towns, end_town, hand_left, usefulness), or None (too big: the caller
 *      runs the pure planner).
 *
 * caravan: the cards a caravan takes (0 without any-cards steps), obstacle_any: on a road
 * with an obstacle (caravan + 1, or 0), boatmen: the boatmen's cards (0: none).  A step is
 * (route, direction, to, kind, n, pay, wild, paid): paid None for the normal payment
 * (n cards of kind), else the 7 card counts an any-cards step gives (the least preferred
 * of what the normal payments leave, in the journey's order, as ``_journey`` chooses). */
/* What ``plan`` and ``edges`` share: the wild kinds and the pieces on the routes read,
 * and the priced steps built into s.  1 built, 0 declined (out of range: None), -1 an
 * argument of the wrong type (the error set). */
static int
board_edges(Search *s, const Tables *tb, PyObject *counters_obj, PyObject *obstacles_obj,
            PyObject *wild_obj, int caravan, int obstacle_any, int boatmen, int magnum,
            int nebulae)
{
    int counters[MAXROUTES], obstacles[MAXROUTES], wild[NK], nwild = 0;
    PyObject *fast = PySequence_Fast(wild_obj, "wild kinds: a sequence");
    if (!fast)
        return -1;
    Py_ssize_t nw = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < nw; i++) {
        int overflow = 0;
        long k = PyLong_AsLongAndOverflow(PySequence_Fast_GET_ITEM(fast, i), &overflow);
        if (overflow || k < 0 || k >= NK || nwild >= NK) {
            Py_DECREF(fast);
            PyErr_Clear();
            return 0;
        }
        wild[nwild++] = (int)k;
    }
    Py_DECREF(fast);
    int got = read_pieces(counters_obj, tb->nroutes, counters);
    if (got == 0)
        got = read_pieces(obstacles_obj, tb->nroutes, obstacles);
    if (got == -2)
        return -1;
    if (got < 0)
        return 0;
    s->nt = tb->nt;
    s->capital = tb->capital;
    return build_edges(s, tb, counters, obstacles, wild, nwild, caravan, obstacle_any,
                       boatmen, magnum, nebulae) < 0 ? 0 : 1;
}

/* edges(tables, counters, obstacles, wild_kinds, caravan, obstacle_any, boatmen, magnum,
 *       nebulae) -> per town, its steps (route, direction, to, kind, n, any_cards, pay,
 *       wild), as ``planner.edges_of`` lists them; None when declined. */
static PyObject *
planner_edges(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *capsule, *counters_obj, *obstacles_obj, *wild_obj;
    int caravan, obstacle_any, boatmen, magnum, nebulae;
    if (!PyArg_ParseTuple(args, "OOOOiiiii", &capsule, &counters_obj, &obstacles_obj,
                          &wild_obj, &caravan, &obstacle_any, &boatmen, &magnum, &nebulae))
        return NULL;
    const Tables *tb = PyCapsule_GetPointer(capsule, TABLES_CAPSULE);
    if (!tb)
        return NULL;
    Search *s = acquire();
    if (!s)
        return PyErr_NoMemory();
    PyObject *result = NULL;
    int built = board_edges(s, tb, counters_obj, obstacles_obj, wild_obj, caravan,
                            obstacle_any, boatmen, magnum, nebulae);
    if (built == 0) {
        result = Py_None;
        Py_INCREF(result);
    }
    else if (built > 0 && (result = PyList_New(tb->nt))) {
        for (int t = 0; t < tb->nt; t++) {
            PyObject *row = PyList_New(s->nedges[t]);
            if (!row) {
                Py_CLEAR(result);
                break;
            }
            PyList_SET_ITEM(result, t, row);
            for (int i = 0; i < s->nedges[t]; i++) {
                const PEdge *e = &s->edges[t][i];
                const PMeta *m = &s->meta[t][i];
                PyObject *edge = Py_BuildValue("(iiiiiiii)", m->route, m->dir, e->to,
                                               e->kind, e->n, e->any, m->pay, m->wild);
                if (!edge) {
                    Py_CLEAR(result);
                    break;
                }
                PyList_SET_ITEM(row, i, edge);
            }
            if (!result)
                break;
        }
    }
    release(s);
    return result;
}

/* plan(tables, counters, obstacles, wild_kinds, caravan, obstacle_any, boatmen, magnum,
 *      nebulae, target, end_bonus, limit, preference, hand, town, visited, needed_only)
 *   -> (steps, new_towns, end_town, hand_left, usefulness), or None (too big: the caller
 *      runs the pure planner).
 *
 * caravan: the cards a caravan takes (0 without any-cards steps), obstacle_any: on a road
 * with an obstacle (caravan + 1, or 0), boatmen: the boatmen's cards (0: none).  A step is
 * (route, direction, to, kind, n, pay, wild, paid): paid None for the normal payment
 * (n cards of kind), else the 7 card counts an any-cards step gives (the least preferred
 * of what the normal payments leave, in the journey's order, as ``_journey`` chooses). */
static PyObject *
planner_plan(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *capsule, *counters_obj, *obstacles_obj, *wild_obj, *bonus_obj, *pref_obj,
        *hand_obj, *visited_obj;
    int caravan, obstacle_any, boatmen, magnum, nebulae, target, limit, town, needed_only;
    if (!PyArg_ParseTuple(args, "OOOOiiiiiiOiOOiOp", &capsule, &counters_obj,
                          &obstacles_obj, &wild_obj, &caravan, &obstacle_any, &boatmen,
                          &magnum, &nebulae, &target, &bonus_obj, &limit, &pref_obj,
                          &hand_obj, &town, &visited_obj, &needed_only))
        return NULL;
    const Tables *tb = PyCapsule_GetPointer(capsule, TABLES_CAPSULE);
    if (!tb)
        return NULL;
    int nt = tb->nt;
    if (town < 0 || town >= nt || target >= nt || target < -1)
        Py_RETURN_NONE;
    Search *s = acquire();
    if (!s)
        return PyErr_NoMemory();
    PyObject *result = NULL;
    int64_t bonus[MAXT];
    int hand[NK], total = 0;
    uint64_t visited;
    int built = board_edges(s, tb, counters_obj, obstacles_obj, wild_obj, caravan,
                            obstacle_any, boatmen, magnum, nebulae);
    if (built < 0)
        goto done;
    s->limit = limit;
    s->needed_only = needed_only;
    if (!built || read_cards(s, pref_obj, hand_obj, hand, &total) < 0
        || read_bonus(bonus_obj, nt, bonus) < 0 || read_visited(visited_obj, &visited) < 0)
        goto unsupported;
    int ready = setup(s, tb->dist, bonus, bonus_obj != Py_None, target, total);
    if (ready == -2)
        goto done;
    if (ready < 0)
        goto unsupported;
    best(s, town, hand, 0, visited, -1, 0);
    if (s->failed)
        goto unsupported;
    {
        int edge_of[MAXCARDS + 2], any_of[MAXCARDS + 2], town_of[MAXCARDS + 2];
        int len = walk(s, town, hand, visited, edge_of, any_of, town_of);
        if (len < 0)
            goto done;
        /* ``_journey``: the cards the normal payments leave, the new towns, then the
         * cards the any-cards steps give, the least preferred of those left. */
        Walked w;
        walked(s, town, hand, visited, len, edge_of, any_of, town_of, &w);
        int final[NK], given[NK];
        kept(s, w.left, w.owed, final);
        for (int k = 0; k < NK; k++)
            given[k] = w.left[k] - final[k];
        PyObject *steps = PyTuple_New(len);
        if (!steps)
            goto done;
        for (int i = 0; i < len; i++) {
            const PEdge *pe = &s->edges[town_of[i]][edge_of[i]];
            const PMeta *pm = &s->meta[town_of[i]][edge_of[i]];
            PyObject *paid = Py_None;
            Py_INCREF(paid);
            if (any_of[i]) {
                int chosen[NK] = {0}, size = pe->any, normal = 1;
                for (int j = 0; j < NK; j++) {
                    int k = s->cheap_order[j];
                    int take = size < given[k] ? size : given[k];
                    chosen[k] = take;
                    given[k] -= take;
                    size -= take;
                }
                for (int k = 0; k < NK; k++)
                    if (chosen[k] != (k == pe->kind ? pe->n : 0))
                        normal = 0;
                if (!normal) {
                    Py_DECREF(paid);
                    paid = Py_BuildValue("(iiiiiii)", chosen[0], chosen[1], chosen[2],
                                         chosen[3], chosen[4], chosen[5], chosen[6]);
                    if (!paid) {
                        Py_DECREF(steps);
                        goto done;
                    }
                }
            }
            PyObject *step = Py_BuildValue("(iiiiiiiN)", pm->route, pm->dir, pe->to,
                                           pe->kind, pe->n, pm->pay, pm->wild, paid);
            if (!step) {
                Py_DECREF(steps);
                goto done;
            }
            PyTuple_SET_ITEM(steps, i, step);
        }
        result = Py_BuildValue("(Nii(iiiiiii)L)", steps, w.new_towns, w.end, final[0],
                               final[1], final[2], final[3], final[4], final[5], final[6],
                               (long long)usefulness(s, final));
    }
    goto done;
unsupported:
    PyErr_Clear();
    Py_CLEAR(result);
    result = Py_None;
    Py_INCREF(result);
done:
    release(s);
    return result;
}

/* ---- outlook(): ``outlook.outlook``'s walk over the towns still to collect -------- */

#define WALKS_CAPSULE "elfenland.bots._planner.walks"

typedef struct {
    int nt;
    int dist[MAXT * MAXT];
    uint64_t near[MAXT]; /* the towns one link away */
} Walks;

static void
walks_free(PyObject *capsule)
{
    free(PyCapsule_GetPointer(capsule, WALKS_CAPSULE));
}

/* walks(distances, n) -> capsule: a board's n * n links (flat), read once. */
static PyObject *
planner_walks(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *distances;
    int nt;
    if (!PyArg_ParseTuple(args, "Oi", &distances, &nt))
        return NULL;
    if (nt < 1 || nt > MAXT || PySequence_Size(distances) != (Py_ssize_t)nt * nt) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "walks: 1 to 64 towns and n * n distances");
        return NULL;
    }
    Walks *w = calloc(1, sizeof(Walks));
    if (!w)
        return PyErr_NoMemory();
    int bad = 0;
    w->nt = nt;
    for (int i = 0; i < nt * nt; i++) {
        long long d = item_ll(distances, i, &bad);
        if (bad || d < 0 || d > 100000) {
            free(w);
            PyErr_SetString(PyExc_ValueError, "walks: a distance out of range");
            return NULL;
        }
        w->dist[i] = (int)d;
        if (d == 1)
            w->near[i / nt] |= (uint64_t)1 << (i % nt);
    }
    PyObject *capsule = PyCapsule_New(w, WALKS_CAPSULE, walks_free);
    if (!capsule)
        free(w);
    return capsule;
}

/* The walk: from start, always on to the nearest town of todo (of equals, the one with
 * most towns of todo beside it, then the lowest); the towns reached within budget
 * links, and the whole walk's length in *length. */
static int
outlook_walk(const int *dist, const uint64_t *near, int nt, int start, uint64_t todo,
             long long budget, long long *length)
{
    int here = start, reached = 0;
    *length = 0;
    while (todo) {
        const int *row = &dist[here * nt];
        uint64_t best = ~(uint64_t)0;
        for (uint64_t m = todo; m; m &= m - 1) {
            int u = __builtin_ctzll(m);
            uint64_t key = ((uint64_t)row[u] << 20)
                           | ((uint64_t)(1023 - __builtin_popcountll(near[u] & todo)) << 10)
                           | (uint64_t)u;
            if (key < best)
                best = key;
        }
        int next = (int)(best & 1023);
        *length += row[next];
        if (*length <= budget)
            reached++;
        todo &= ~((uint64_t)1 << next);
        here = next;
    }
    return reached;
}

/* outlook(walks, start, todo, budget) -> (towns reached within budget links, -length):
 * from start, always on to the nearest town of the mask todo (of equals, the one with
 * most towns of todo beside it, then the lowest). */
static PyObject *
planner_outlook(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *capsule, *todo_obj;
    int start;
    long long budget;
    if (!PyArg_ParseTuple(args, "OiOL", &capsule, &start, &todo_obj, &budget))
        return NULL;
    const Walks *w = PyCapsule_GetPointer(capsule, WALKS_CAPSULE);
    if (!w)
        return NULL;
    int nt = w->nt;
    int overflow = 0;
    long long t = PyLong_AsLongLongAndOverflow(todo_obj, &overflow);
    if (t == -1 && PyErr_Occurred())
        return NULL;
    uint64_t all = nt == 64 ? ~(uint64_t)0 : (((uint64_t)1 << nt) - 1);
    if (overflow || t < 0 || ((uint64_t)t & ~all) || start < 0 || start >= nt) {
        PyErr_SetString(PyExc_ValueError, "outlook: a start and towns of the board");
        return NULL;
    }
    long long length;
    int reached = outlook_walk(w->dist, w->near, nt, start, (uint64_t)t, budget, &length);
    return Py_BuildValue("(iL)", reached, -length);
}

/* ---- the quick level's rollouts (QuickRollouts) ------------------------------- */

#include "_quick_rollout.h"

static PyMethodDef methods[] = {
    {"edges", planner_edges, METH_VARARGS,
     "The priced steps ``plan`` searches, per town (``planner.edges_of``'s)."},
    {"tables", planner_tables, METH_VARARGS,
     "A board's links, distances and cost table, read once for ``plan``."},
    {"plan", planner_plan, METH_VARARGS,
     "The best journey on a board's tables and the counters on its roads: (steps, new "
     "towns, end town, hand left, usefulness), or None when too big for the compiled "
     "code."},
    {"walks", planner_walks, METH_VARARGS,
     "A board's distances, read once for ``outlook``."},
    {"outlook", planner_outlook, METH_VARARGS,
     "outlook(walks, start, todo_mask, budget): (towns reached within the budget, minus "
     "the walk's length)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_planner",
    "The Elfenland movement planner's search, compiled (see planner.py).", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__planner(void)
{
    if (PyType_Ready(&QuickRolloutsType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&QuickRolloutsType);
    if (PyModule_AddObject(m, "QuickRollouts", (PyObject *)&QuickRolloutsType) < 0) {
        Py_DECREF(&QuickRolloutsType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
