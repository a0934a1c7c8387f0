/* The King of the Elves journey planner's search, compiled (issue #25).
 *
 * A line-by-line port of ``_Search`` in ``kingelves_journey.py`` (solve, best, moves,
 * bound, ring, visits, ring_walk, bonus_in_reach, walk): the same child order, the same
 * bounds (the rates' float sum included, added as the running Python adds it), the same
 * memo (exact values and fail-lows, a position overwritten in place) and so the same
 * ``budget`` count of positions remembered.  It returns the very steps the pure search
 * walks out of its memo.  ``kingelves_journey.py`` stays the reference and the fallback
 * (``_table``, the greedy walk and the ``Plan`` stay in Python); the differential test
 * (tests/bots/test_kingelves_planner_fast.py) holds the two equal.
 *
 * solve(table, values, pos, budget, extras, neumaier) -> (steps, hand) | False | None
 *
 *   table: (size, start, traveller, magic_spell, weak_gold, hazards, kingdom[size],
 *           value[size], costs[7 * size], obstacle[size], thief[size], doubles[size])
 *           flattened into one tuple of ints; hazards is a bit set of kingdoms;
 *   values: the 9 card values; pos: the journey position as in ``_Pos``;
 *   budget: the positions the memo may hold, or None; extras: escorts and changes of
 *   direction tried; neumaier: Python's ``sum`` of floats compensates (3.12 and later).
 *   A step is (code, town, gain): code 0..27 a visit (4 * transport + cards), 28 an
 *   escort, 29 a change of direction, 32 + sum(count[k] * 5**k) a spell.
 *
 * False means "over budget" (``_OutOfBudget``).  None means "beyond this code" (no towns
 * or more than 64, more than 6 kingdoms, more than 60 cards of a kind or 240 transport cards, gold beyond 255
 * after capping, card values beyond 10**6): the caller then runs the pure search.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NT 7   /* transports */
#define NC 9   /* journey cards */
#define ESCORT_SLOT 7
#define REVERSE_SLOT 8
#define MAXT 64
#define MAXK 6
#define MAXN 60
#define MAXTRANSPORTS 240
#define MAXGOLD 255
#define MAXVALUE 1000000L /* so that every ring gain fits an int */
#define GOLD_UNIT 100
#define THIEF_TOLL 2
#define SPELL_GOLD 3
#define SPELL_CARDS 4
#define ALL_TOWNS_BONUS 10
#define WALKS_AFTER 32
#define NO_ONE (-1)
#define NEG_INF (INT64_MIN / 4)
#define MAXDEPTH 2000

#define CODE_ESCORT 28
#define CODE_REVERSE 29
#define CODE_SPELL 32

typedef struct {
    uint64_t visited;
    uint8_t hand[NC];
    int8_t at, dir, escort;
    uint8_t turned, own, bonus, gold;
} Pos; /* 24 bytes, zeroed before use so that memcmp compares it */

typedef struct {
    Pos key;
    Pos nxt;
    int64_t value;
    int32_t code, town, gain;
    uint8_t exact, has_choice;
} Entry;

typedef struct {
    Pos nxt;
    int32_t code, town, gain;
    int64_t spent;
} Move;

typedef struct {
    int costs[MAXT], gains[MAXT], safe_costs[MAXT], safe_gains[MAXT];
    int usable[NT];
    uint32_t key;
} Ring;

typedef struct {
    uint64_t key;
    int64_t value;
} WalkEntry;

typedef struct {
    int size, start, traveller, magic, weak, extras, neumaier;
    uint64_t hazards, all_bits;
    int kingdom[MAXT], value[MAXT], cost[MAXT][NT], obstacle[MAXT], thief[MAXT],
        doubles[MAXT];
    int64_t values[NC];
    int has_budget;
    int64_t budget;
    /* rates */
    int have_rates;
    double rates[NC];
    /* walks */
    int have_walks;
    int nopt[MAXT], opt_k[MAXT][NT], opt_x[MAXT][NT];
    int needs[NT], caps[NT];
    int loose;
    /* memo */
    Entry *entries;
    size_t count, cap;
    int32_t *slots;
    size_t nslots;
    /* rings: (counts, spell) -> index */
    Ring *rings;
    size_t nrings, ringcap;
    int32_t *ringslots;
    size_t nringslots;
    /* walks memo */
    WalkEntry *walks;
    size_t nwalks, nwalkslots;
    /* moves stack */
    Move *moves;
    size_t nmoves, movecap;
    int depth;
    int abort; /* 1: over budget, 2: out of memory, 3: too deep for this code */
} Search;

static inline int
pymod(int a, int n)
{
    int r = a % n;
    return r < 0 ? r + n : r;
}

static inline uint64_t
mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline uint64_t
pos_hash(const Pos *p)
{
    uint64_t a, b, c;
    memcpy(&a, (const char *)p, 8);
    memcpy(&b, (const char *)p + 8, 8);
    memcpy(&c, (const char *)p + 16, 8);
    return mix64(a ^ mix64(b ^ mix64(c)));
}

/* ---- the memo: insertion-ordered entries, an open-addressing index ---- */

static int64_t
memo_find(Search *s, const Pos *p)
{
    size_t mask = s->nslots - 1;
    size_t i = (size_t)pos_hash(p) & mask;
    for (;;) {
        int32_t e = s->slots[i];
        if (e < 0)
            return -1;
        if (memcmp(&s->entries[e].key, p, sizeof(Pos)) == 0)
            return e;
        i = (i + 1) & mask;
    }
}

static int
memo_grow(Search *s)
{
    size_t n = s->nslots * 2;
    int32_t *slots = malloc(n * sizeof(int32_t));
    if (!slots)
        return -1;
    memset(slots, 0xff, n * sizeof(int32_t));
    for (size_t e = 0; e < s->count; e++) {
        size_t i = (size_t)pos_hash(&s->entries[e].key) & (n - 1);
        while (slots[i] >= 0)
            i = (i + 1) & (n - 1);
        slots[i] = (int32_t)e;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return 0;
}

/* The entry for p, made (at the end of the insertion order) when new; -1: no memory. */
static int64_t
memo_slot(Search *s, const Pos *p)
{
    int64_t e = memo_find(s, p);
    if (e >= 0)
        return e;
    if ((s->count + 1) * 2 > s->nslots && memo_grow(s) < 0)
        return -1;
    if (s->count == s->cap) {
        size_t cap = s->cap * 2;
        Entry *entries = realloc(s->entries, cap * sizeof(Entry));
        if (!entries)
            return -1;
        s->entries = entries;
        s->cap = cap;
    }
    size_t mask = s->nslots - 1;
    size_t i = (size_t)pos_hash(p) & mask;
    while (s->slots[i] >= 0)
        i = (i + 1) & mask;
    e = (int64_t)s->count++;
    s->slots[i] = (int32_t)e;
    memset(&s->entries[e], 0, sizeof(Entry));
    s->entries[e].key = *p;
    return e;
}

/* ---- helpers ---- */

static inline int64_t
keep_of(const Search *s, const uint8_t *hand)
{
    int64_t out = 0;
    for (int i = 0; i < NC; i++)
        out += s->values[i] * hand[i];
    return out;
}

static inline int
transports(const uint8_t *hand)
{
    int n = 0;
    for (int k = 0; k < NT; k++)
        n += hand[k];
    return n;
}

static inline int
capped(int gold, int transport_cards)
{
    int cap = THIEF_TOLL + SPELL_GOLD + SPELL_GOLD * (transport_cards / SPELL_CARDS);
    return gold < cap ? gold : cap;
}

static Move *
push_move(Search *s)
{
    if (s->nmoves == s->movecap) {
        size_t cap = s->movecap * 2;
        Move *moves = realloc(s->moves, cap * sizeof(Move));
        if (!moves)
            return NULL;
        s->moves = moves;
        s->movecap = cap;
    }
    Move *m = &s->moves[s->nmoves++];
    memset(m, 0, sizeof(Move));
    return m;
}

/* ``_Search.moves``: every legal action but stop, pushed on the move stack in the pure
 * search's order.  Returns -1 when out of memory. */
static int
gen_moves(Search *s, const Pos *pos)
{
    int size = s->size;
    int at = pos->at, direction = pos->dir, turned = pos->turned, own = pos->own;
    int escort = pos->escort, bonus = pos->bonus, gold = pos->gold;
    uint64_t visited = pos->visited;
    const uint8_t *hand = pos->hand;
    const int64_t *values = s->values;
    int target;
    if (at < 0)
        target = s->start;
    else if (turned)
        target = at;
    else
        target = pymod(at + direction, size);
    int kingdom = s->kingdom[target];
    int protected_ = escort == kingdom;
    int toll = s->thief[target] && !protected_ ? THIEF_TOLL : 0;
    int obstacle = s->obstacle[target] && !protected_ ? 1 : 0;
    int dbl = s->doubles[target] && !(s->weak && protected_);
    int earned = s->value[target] * (dbl ? 2 : 1);
    int new_escort = escort == kingdom ? escort : NO_ONE;
    if (gold >= toll) {
        int cards = transports(hand);
        /* payments: (sort key, code, left hand, spell gold, spent, used) */
        int np = 0;
        int64_t pkey[NT];
        int pk[NT], pn[NT];
        for (int k = 0; k < NT; k++) {
            int base = s->cost[target][k];
            int n = base + obstacle;
            if (base && hand[k] >= n) {
                int64_t key = n * values[k] + n;
                /* stable insertion: after every equal key */
                int j = np;
                while (j > 0 && pkey[j - 1] > key) {
                    pkey[j] = pkey[j - 1];
                    pk[j] = pk[j - 1];
                    pn[j] = pn[j - 1];
                    j--;
                }
                pkey[j] = key;
                pk[j] = k;
                pn[j] = n;
                np++;
            }
        }
        uint64_t bits = visited | ((uint64_t)1 << target);
        int own_now = own || kingdom == s->traveller;
        /* The visits: one per payment, or per spell when no transport pays. */
        int nspell = 0;
        int spells[256][NT];
        if (!np && s->magic && gold >= toll + SPELL_GOLD) {
            int kinds[NT], nk = 0;
            for (int k = 0; k < NT; k++)
                if (hand[k])
                    kinds[nk++] = k;
            for (int a = 0; a < nk; a++)
                for (int b = a; b < nk; b++)
                    for (int c = b; c < nk; c++)
                        for (int d = c; d < nk; d++) {
                            int counts[NT] = {0};
                            counts[kinds[a]]++;
                            counts[kinds[b]]++;
                            counts[kinds[c]]++;
                            counts[kinds[d]]++;
                            int ok = 1;
                            for (int k = 0; k < NT; k++)
                                if (counts[k] > hand[k])
                                    ok = 0;
                            if (ok) {
                                memcpy(spells[nspell], counts, sizeof(counts));
                                nspell++;
                            }
                        }
        }
        int total = np ? np : nspell;
        for (int i = 0; i < total; i++) {
            Move *m = push_move(s);
            if (!m)
                return -1;
            uint8_t left[NC];
            memcpy(left, hand, NC);
            int spell, used, code;
            int64_t spent;
            if (np) {
                left[pk[i]] = (uint8_t)(left[pk[i]] - pn[i]);
                spell = 0;
                used = pn[i];
                spent = pn[i] * values[pk[i]];
                code = 4 * pk[i] + pn[i];
            } else {
                int packed = 0, pw = 1;
                spent = 0;
                for (int k = 0; k < NT; k++) {
                    left[k] = (uint8_t)(left[k] - spells[i][k]);
                    spent += spells[i][k] * values[k];
                    packed += spells[i][k] * pw;
                    pw *= 5;
                }
                spell = SPELL_GOLD;
                used = SPELL_CARDS;
                code = CODE_SPELL + packed;
            }
            int gain = earned - toll - spell;
            int paid_bonus = bonus;
            uint64_t after = bits;
            if (!bonus) {
                if (bits == s->all_bits) {
                    gain += ALL_TOWNS_BONUS;
                    paid_bonus = 1;
                } else if (__builtin_popcountll(s->all_bits & ~bits) > cards - used) {
                    paid_bonus = 1;
                }
                if (paid_bonus)
                    after = 0;
            } else {
                after = 0;
            }
            Pos *n = &m->nxt;
            n->visited = after;
            memcpy(n->hand, left, NC);
            n->at = (int8_t)target;
            n->dir = (int8_t)direction;
            n->escort = (int8_t)new_escort;
            n->turned = 0;
            n->own = (uint8_t)own_now;
            n->bonus = (uint8_t)paid_bonus;
            n->gold = (uint8_t)capped(gold + gain, cards - used);
            m->code = code;
            m->town = target;
            m->gain = gain;
            m->spent = spent;
        }
    }
    int entering = at < 0 || s->kingdom[at] != kingdom;
    if (s->extras && hand[ESCORT_SLOT] && entering && escort != kingdom &&
        (s->hazards >> kingdom & 1)) {
        Move *m = push_move(s);
        if (!m)
            return -1;
        m->nxt = *pos;
        m->nxt.escort = (int8_t)kingdom;
        m->nxt.hand[ESCORT_SLOT]--;
        m->code = CODE_ESCORT;
        m->town = -1;
        m->gain = 0;
        m->spent = values[ESCORT_SLOT];
    }
    if (s->extras && hand[REVERSE_SLOT] && own && !turned) {
        Move *m = push_move(s);
        if (!m)
            return -1;
        m->nxt = *pos;
        m->nxt.dir = (int8_t)(-direction);
        m->nxt.turned = 1;
        m->nxt.hand[REVERSE_SLOT]--;
        m->code = CODE_REVERSE;
        m->town = -1;
        m->gain = 0;
        m->spent = values[REVERSE_SLOT];
    }
    return 0;
}

/* ``_rates``: per journey card the most one card of its kind can add. */
static void
prepare_rates(Search *s)
{
    int best_town = 0;
    for (int j = 0; j < s->size; j++) {
        int v = s->value[j] * (s->doubles[j] ? 2 : 1);
        if (j == 0 || v > best_town)
            best_town = v;
    }
    for (int i = 0; i < NC; i++)
        s->rates[i] = 0.0;
    for (int k = 0; k < NT; k++) {
        int any = 0;
        double top = 0.0;
        for (int j = 0; j < s->size; j++) {
            if (!s->cost[j][k])
                continue;
            double x = (double)(GOLD_UNIT * s->value[j] * (s->doubles[j] ? 2 : 1)) /
                       (double)s->cost[j][k];
            if (!any || x > top)
                top = x;
            any = 1;
        }
        if (s->magic) {
            double x = (double)(GOLD_UNIT * (best_town - SPELL_GOLD)) / (double)SPELL_CARDS;
            if (!any || x > top)
                top = x;
            any = 1;
        }
        double r = (any ? top : 0.0) - (double)s->values[k];
        s->rates[k] = r > 0.0 ? r : 0.0; /* max(0.0, r) */
    }
    s->have_rates = 1;
}

/* ``_Search.visits`` for one outline: fills costs and gains. */
static void
ring_visits(const Search *s, const int *counts, int spell, int64_t cheapest, int hindered,
            int *costs, int *gains)
{
    for (int j = 0; j < s->size; j++) {
        int extra = hindered && s->obstacle[j] ? 1 : 0;
        int earned;
        if (hindered) {
            earned = s->value[j] * (s->doubles[j] ? 2 : 1);
            earned -= s->thief[j] ? THIEF_TOLL : 0;
        } else {
            earned = s->value[j] * (s->doubles[j] && !s->weak ? 2 : 1);
        }
        int n = 0;
        int64_t worth = 0;
        for (int o = 0; o < s->nopt[j]; o++) {
            int k = s->opt_k[j][o], x = s->opt_x[j][o];
            if (counts[k] >= x + extra) {
                int64_t w = (int64_t)(x + extra) * s->values[k];
                if (!n) {
                    n = x + extra;
                    worth = w;
                } else if (w < worth) {
                    worth = w;
                }
            }
        }
        if (n) {
            costs[j] = n;
            int64_t a = (int64_t)GOLD_UNIT * earned - worth;
            if (spell) {
                int64_t b = (int64_t)GOLD_UNIT * (earned - SPELL_GOLD) - cheapest * SPELL_CARDS;
                gains[j] = (int)(a >= b ? a : b);
            } else {
                gains[j] = (int)a;
            }
        } else if (spell) {
            costs[j] = SPELL_CARDS;
            gains[j] = (int)((int64_t)GOLD_UNIT * (earned - SPELL_GOLD) - cheapest * SPELL_CARDS);
        } else {
            costs[j] = 0;
            gains[j] = 0;
        }
    }
}

/* ``_Search.ring``: the ring as ``hand`` sees it (an index into s->rings, -1: no memory)
 * and, in *cards, how many of its transport cards could pay for a visit. */
static int
ring_of(Search *s, const uint8_t *hand, int *cards)
{
    int counts[NT];
    uint32_t key = 0;
    int total = 0;
    for (int k = 0; k < NT; k++) {
        counts[k] = hand[k] < s->caps[k] ? hand[k] : s->caps[k];
        key |= (uint32_t)counts[k] << (1 + 4 * k);
        total += hand[k];
    }
    int spell = s->magic && total >= SPELL_CARDS;
    key |= (uint32_t)spell;
    size_t mask = s->nringslots - 1;
    size_t i = (size_t)mix64(key) & mask;
    int r = -1;
    for (;;) {
        int32_t e = s->ringslots[i];
        if (e < 0)
            break;
        if (s->rings[e].key == key) {
            r = e;
            break;
        }
        i = (i + 1) & mask;
    }
    if (r < 0) {
        if ((s->nrings + 1) * 2 > s->nringslots) {
            size_t n = s->nringslots * 2;
            int32_t *slots = malloc(n * sizeof(int32_t));
            if (!slots)
                return -1;
            memset(slots, 0xff, n * sizeof(int32_t));
            for (size_t e = 0; e < s->nrings; e++) {
                size_t h = (size_t)mix64(s->rings[e].key) & (n - 1);
                while (slots[h] >= 0)
                    h = (h + 1) & (n - 1);
                slots[h] = (int32_t)e;
            }
            free(s->ringslots);
            s->ringslots = slots;
            s->nringslots = n;
            mask = n - 1;
            i = (size_t)mix64(key) & mask;
            while (s->ringslots[i] >= 0)
                i = (i + 1) & mask;
        }
        if (s->nrings == s->ringcap) {
            size_t cap = s->ringcap * 2;
            Ring *rings = realloc(s->rings, cap * sizeof(Ring));
            if (!rings)
                return -1;
            s->rings = rings;
            s->ringcap = cap;
        }
        if (s->nrings >= (1u << 20))
            return -1;
        r = (int)s->nrings++;
        s->ringslots[i] = r;
        Ring *g = &s->rings[r];
        g->key = key;
        int any = 0;
        int64_t cheapest = 0;
        for (int k = 0; k < NT; k++) {
            g->usable[k] = spell || counts[k] >= s->needs[k];
            if (g->usable[k] && counts[k]) {
                if (!any || s->values[k] < cheapest)
                    cheapest = s->values[k];
                any = 1;
            }
        }
        ring_visits(s, counts, spell, cheapest, 1, g->costs, g->gains);
        ring_visits(s, counts, spell, cheapest, 0, g->safe_costs, g->safe_gains);
    }
    int n = 0;
    for (int k = 0; k < NT; k++)
        if (s->rings[r].usable[k])
            n += hand[k];
    *cards = n;
    return r;
}

static int
prepare_walks(Search *s, const uint8_t *first)
{
    for (int j = 0; j < s->size; j++) {
        int n = 0;
        for (int k = 0; k < NT; k++) {
            int x = s->cost[j][k];
            if (!x)
                continue;
            /* stable insertion by cards */
            int i = n;
            while (i > 0 && s->opt_x[j][i - 1] > x) {
                s->opt_x[j][i] = s->opt_x[j][i - 1];
                s->opt_k[j][i] = s->opt_k[j][i - 1];
                i--;
            }
            s->opt_x[j][i] = x;
            s->opt_k[j][i] = k;
            n++;
        }
        s->nopt[j] = n;
    }
    for (int k = 0; k < NT; k++) {
        int need = 99, cap = -1;
        for (int j = 0; j < s->size; j++) {
            int c = s->cost[j][k];
            if (!c)
                continue;
            if (c < need)
                need = c;
            if (c + s->obstacle[j] > cap)
                cap = c + s->obstacle[j];
        }
        s->needs[k] = need;
        s->caps[k] = cap < 0 ? 1 : cap;
    }
    int cards;
    s->loose = ring_of(s, first, &cards);
    if (s->loose < 0)
        return -1;
    s->have_walks = 1;
    return 0;
}

static int64_t walk_find(Search *s, uint64_t key, int *found)
{
    size_t mask = s->nwalkslots - 1;
    size_t i = (size_t)mix64(key) & mask;
    for (;;) {
        WalkEntry *w = &s->walks[i];
        if (w->key == 0) {
            *found = 0;
            return (int64_t)i;
        }
        if (w->key == key) {
            *found = 1;
            return (int64_t)i;
        }
        i = (i + 1) & mask;
    }
}

static int
walk_store(Search *s, uint64_t key, int64_t value)
{
    if ((s->nwalks + 1) * 2 > s->nwalkslots) {
        size_t n = s->nwalkslots * 2;
        WalkEntry *walks = calloc(n, sizeof(WalkEntry));
        if (!walks)
            return -1;
        for (size_t e = 0; e < s->nwalkslots; e++) {
            if (!s->walks[e].key)
                continue;
            size_t h = (size_t)mix64(s->walks[e].key) & (n - 1);
            while (walks[h].key)
                h = (h + 1) & (n - 1);
            walks[h] = s->walks[e];
        }
        free(s->walks);
        s->walks = walks;
        s->nwalkslots = n;
    }
    int found;
    int64_t i = walk_find(s, key, &found);
    if (!found)
        s->nwalks++;
    s->walks[i].key = key;
    s->walks[i].value = value;
    return 0;
}

/* ``_Search.ring_walk``. */
static int64_t
ring_walk(Search *s, int r, int cards, int at, int direction, int turned, int reverses,
          int escorts, int escort)
{
    if (s->abort)
        return 0;
    /* never 0: the ring index is at least 0 and bit 63 is set */
    uint64_t key = ((uint64_t)1 << 63) | ((uint64_t)r << 40) | ((uint64_t)cards << 28) |
                   ((uint64_t)(at + 1) << 20) | ((uint64_t)(direction > 0) << 19) |
                   ((uint64_t)turned << 18) | ((uint64_t)reverses << 11) |
                   ((uint64_t)escorts << 4) | (uint64_t)(escort + 1);
    int found;
    int64_t i = walk_find(s, key, &found);
    if (found)
        return s->walks[i].value;
    if (++s->depth > MAXDEPTH) {
        s->abort = 3;
        return 0;
    }
    int size = s->size;
    int64_t best = 0, gained = 0;
    int here = at;
    while (size) {
        if (reverses && !turned) {
            int64_t value = ring_walk(s, r, cards, here, -direction, 1, reverses - 1, escorts,
                                      escort);
            int64_t v = gained - s->values[REVERSE_SLOT] + value;
            if (v > best)
                best = v;
        }
        int target = here < 0 ? s->start : turned ? here : pymod(here + direction, size);
        int k = s->kingdom[target];
        if (escorts && escort != k && (s->hazards >> k & 1) &&
            (here < 0 || s->kingdom[here] != k)) {
            int64_t value = ring_walk(s, r, cards, here, direction, turned, reverses,
                                      escorts - 1, k);
            int64_t v = gained - s->values[ESCORT_SLOT] + value;
            if (v > best)
                best = v;
        }
        const Ring *g = &s->rings[r];
        int n, gain;
        if (escort == k) {
            n = g->safe_costs[target];
            gain = g->safe_gains[target];
        } else {
            n = g->costs[target];
            gain = g->gains[target];
            escort = NO_ONE;
        }
        if (!n || n > cards)
            break;
        cards -= n;
        gained += gain;
        if (gained > best)
            best = gained;
        here = target;
        turned = 0;
    }
    s->depth--;
    if (s->abort)
        return 0;
    if (walk_store(s, key, best) < 0)
        s->abort = 2;
    return best;
}

/* ``_Search.bonus_in_reach``. */
static int
bonus_in_reach(const Search *s, int r, int cards, int at, int direction, int turned,
               int reverses, int escorts, int escort, uint64_t unvisited)
{
    int size = s->size;
    if (!unvisited || !size)
        return 1;
    const Ring *g = &s->rings[r];
    int costs[MAXT];
    for (int j = 0; j < size; j++)
        costs[j] = escorts || escort == s->kingdom[j] ? g->safe_costs[j] : g->costs[j];
    if (!reverses) {
        int target = at < 0 ? s->start : turned ? at : pymod(at + direction, size);
        for (;;) {
            int n = costs[target];
            if (!n || n > cards)
                return 0;
            cards -= n;
            unvisited &= ~((uint64_t)1 << target);
            if (!unvisited)
                return 1;
            target = pymod(target + direction, size);
        }
    }
    int origin = at < 0 ? s->start : at;
    int need = at < 0 || turned ? costs[origin] : 0;
    if ((at < 0 || turned) && !need)
        return 0;
    unvisited &= ~((uint64_t)1 << origin);
    int64_t ahead[MAXT], behind[MAXT];
    ahead[0] = behind[0] = 0;
    for (int d = 1; d < size; d++) {
        int a = costs[pymod(origin + d, size)], b = costs[pymod(origin - d, size)];
        ahead[d] = ahead[d - 1] + (a ? a : cards + 1);
        behind[d] = behind[d - 1] + (b ? b : cards + 1);
    }
    int on[MAXT], back[MAXT], nreach = 0;
    for (int j = 0; j < size; j++) {
        if (unvisited >> j & 1) {
            on[nreach] = pymod(j - origin, size);
            back[nreach] = pymod(origin - j, size);
            nreach++;
        }
    }
    int64_t least = nreach ? ahead[size - 1] : 0;
    for (int l = -1; l < nreach; l++) {
        int left = l < 0 ? 0 : back[l];
        int right = 0;
        for (int x = 0; x < nreach; x++)
            if (back[x] > left && on[x] > right)
                right = on[x];
        if (left + right < size) {
            int64_t v = ahead[right] + behind[left];
            if (v < least)
                least = v;
        }
    }
    return need + least <= cards;
}

/* ``_Search.bound``. */
static int64_t
bound(Search *s, const Pos *pos, int64_t keep, int64_t alpha, const uint8_t *first)
{
    if (!s->have_rates)
        prepare_rates(s);
    /* Python's sum over the floats n * rate (n > 0), from the int 0 */
    double f = 0.0, c = 0.0;
    for (int i = 0; i < NC; i++) {
        if (!pos->hand[i])
            continue;
        double x = (double)pos->hand[i] * s->rates[i];
        if (s->neumaier) {
            double t = f + x;
            if (fabs(f) >= fabs(x))
                c += (f - t) + x;
            else
                c += (x - t) + f;
            f = t;
        } else {
            f += x;
        }
    }
    if (s->neumaier && c != 0.0 && isfinite(c))
        f += c;
    int64_t extra = (int64_t)ceil(f);
    int64_t prize = pos->bonus ? 0 : (int64_t)ALL_TOWNS_BONUS * GOLD_UNIT;
    int64_t out = keep + extra;
    if (out + prize <= alpha || s->count < WALKS_AFTER)
        return out + prize;
    if (!s->have_walks && prepare_walks(s, first) < 0) {
        s->abort = 2;
        return 0;
    }
    int reverses = s->extras ? pos->hand[REVERSE_SLOT] : 0;
    int escorts = s->extras ? pos->hand[ESCORT_SLOT] : 0;
    uint64_t unvisited = s->all_bits & ~pos->visited;
    int r = s->loose;
    int cards = 0;
    for (int k = 0; k < NT; k++)
        if (s->rings[r].usable[k])
            cards += pos->hand[k];
    for (int last = 0; last < 2; last++) {
        int64_t walk = ring_walk(s, r, cards, pos->at, pos->dir, pos->turned, reverses,
                                 escorts, pos->escort);
        if (s->abort)
            return 0;
        if (keep + walk < out)
            out = keep + walk;
        if (prize && out <= alpha && alpha < out + prize &&
            !bonus_in_reach(s, r, cards, pos->at, pos->dir, pos->turned, reverses, escorts,
                            pos->escort, unvisited))
            prize = 0;
        if (last || out + prize <= alpha)
            break;
        int sharper = ring_of(s, pos->hand, &cards);
        if (sharper < 0) {
            s->abort = 2;
            return 0;
        }
        if (sharper == r)
            break;
        r = sharper;
    }
    return out + prize;
}

/* ``_Search.best``: has_keep says whether ``keep`` is given; ``alpha`` NEG_INF is -inf. */
static int64_t
best(Search *s, const Pos *pos, int64_t alpha, int has_keep, int64_t keep,
     const uint8_t *first)
{
    int64_t e = memo_find(s, pos);
    if (e >= 0 && (s->entries[e].exact || s->entries[e].value <= alpha))
        return s->entries[e].value;
    if (++s->depth > MAXDEPTH) {
        s->abort = 3;
        return 0;
    }
    int64_t b = has_keep ? keep : keep_of(s, pos->hand);
    if (b <= alpha) {
        int64_t ceiling = bound(s, pos, b, alpha, first);
        if (s->abort)
            return 0;
        if (ceiling <= alpha) {
            e = memo_slot(s, pos);
            if (e < 0) {
                s->abort = 2;
                return 0;
            }
            Entry *en = &s->entries[e];
            en->value = ceiling;
            en->has_choice = 0;
            en->exact = 0;
            s->depth--;
            return ceiling;
        }
    }
    int64_t floor_ = alpha > b ? alpha : b;
    keep = b;
    size_t base = s->nmoves;
    if (gen_moves(s, pos) < 0) {
        s->abort = 2;
        return 0;
    }
    size_t top = s->nmoves;
    int64_t choice = -1;
    Move chosen;
    memset(&chosen, 0, sizeof(chosen));
    for (size_t i = base; i < top; i++) {
        Move m = s->moves[i]; /* a copy: the stack may move */
        int64_t g = (int64_t)m.gain * GOLD_UNIT;
        int64_t value = g + best(s, &m.nxt, floor_ - g, 1, keep - m.spent, first);
        if (s->abort)
            return 0;
        if (value > b) {
            b = value;
            if (value > floor_) {
                floor_ = value;
                choice = (int64_t)i;
                chosen = m;
            }
        }
    }
    s->nmoves = base;
    int exact = b > alpha;
    e = memo_slot(s, pos);
    if (e < 0) {
        s->abort = 2;
        return 0;
    }
    Entry *en = &s->entries[e];
    en->value = b;
    en->exact = (uint8_t)exact;
    if (exact && choice >= 0) {
        en->has_choice = 1;
        en->nxt = chosen.nxt;
        en->code = chosen.code;
        en->town = chosen.town;
        en->gain = chosen.gain;
    } else {
        en->has_choice = 0;
    }
    s->depth--;
    if (s->has_budget && (int64_t)s->count > s->budget) {
        s->abort = 1;
        return 0;
    }
    return b;
}

/* ---- argument parsing ---- */

static int
small_int(PyObject *o, long lo, long hi, long *out)
{
    if (!PyLong_Check(o))
        return 0;
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    if (v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* 1: read; 0: beyond this code (decline). */
static int
read_args(Search *s, PyObject *table, PyObject *values, PyObject *pos, Pos *p)
{
    long v;
    if (!PyTuple_Check(table) || PyTuple_GET_SIZE(table) < 6)
        return 0;
    if (!small_int(PyTuple_GET_ITEM(table, 0), 1, MAXT, &v))
        return 0;
    int size = (int)v;
    s->size = size;
    if (PyTuple_GET_SIZE(table) != 6 + (Py_ssize_t)size * (5 + NT))
        return 0;
    if (!small_int(PyTuple_GET_ITEM(table, 1), 0, size - 1, &v))
        return 0;
    s->start = (int)v;
    if (!small_int(PyTuple_GET_ITEM(table, 2), 0, MAXK - 1, &v))
        return 0;
    s->traveller = (int)v;
    if (!small_int(PyTuple_GET_ITEM(table, 3), 0, 1, &v))
        return 0;
    s->magic = (int)v;
    if (!small_int(PyTuple_GET_ITEM(table, 4), 0, 1, &v))
        return 0;
    s->weak = (int)v;
    if (!small_int(PyTuple_GET_ITEM(table, 5), 0, (1L << MAXK) - 1, &v))
        return 0;
    s->hazards = (uint64_t)v;
    Py_ssize_t o = 6;
    for (int j = 0; j < size; j++, o++) {
        if (!small_int(PyTuple_GET_ITEM(table, o), 0, MAXK - 1, &v))
            return 0;
        s->kingdom[j] = (int)v;
    }
    for (int j = 0; j < size; j++, o++) {
        if (!small_int(PyTuple_GET_ITEM(table, o), 0, 1000, &v))
            return 0;
        s->value[j] = (int)v;
    }
    for (int j = 0; j < size; j++)
        for (int k = 0; k < NT; k++, o++) {
            if (!small_int(PyTuple_GET_ITEM(table, o), 0, 9, &v))
                return 0;
            s->cost[j][k] = (int)v;
        }
    int *flags[3] = {s->obstacle, s->thief, s->doubles};
    for (int f = 0; f < 3; f++)
        for (int j = 0; j < size; j++, o++) {
            if (!small_int(PyTuple_GET_ITEM(table, o), 0, 1, &v))
                return 0;
            flags[f][j] = (int)v;
        }
    s->all_bits = size == 64 ? ~(uint64_t)0 : (((uint64_t)1 << size) - 1);
    if (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != NC)
        return 0;
    for (int i = 0; i < NC; i++) {
        if (!small_int(PyTuple_GET_ITEM(values, i), 0, MAXVALUE, &v))
            return 0;
        s->values[i] = v;
    }
    if (!PyTuple_Check(pos) || PyTuple_GET_SIZE(pos) != 9)
        return 0;
    memset(p, 0, sizeof(Pos));
    if (!small_int(PyTuple_GET_ITEM(pos, 0), -1, size - 1, &v))
        return 0;
    p->at = (int8_t)v;
    if (!small_int(PyTuple_GET_ITEM(pos, 1), -1, 1, &v) || v == 0)
        return 0;
    p->dir = (int8_t)v;
    PyObject *turned = PyTuple_GET_ITEM(pos, 2), *own = PyTuple_GET_ITEM(pos, 3);
    PyObject *bonus = PyTuple_GET_ITEM(pos, 6);
    if (!PyBool_Check(turned) || !PyBool_Check(own) || !PyBool_Check(bonus))
        return 0;
    p->turned = turned == Py_True;
    p->own = own == Py_True;
    p->bonus = bonus == Py_True;
    if (!small_int(PyTuple_GET_ITEM(pos, 4), -1, MAXK - 1, &v))
        return 0;
    p->escort = (int8_t)v;
    PyObject *vis = PyTuple_GET_ITEM(pos, 5);
    if (!PyLong_Check(vis))
        return 0;
    unsigned long long bits = PyLong_AsUnsignedLongLong(vis);
    if (bits == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (bits & ~s->all_bits)
        return 0;
    p->visited = bits;
    PyObject *hand = PyTuple_GET_ITEM(pos, 7);
    if (!PyTuple_Check(hand) || PyTuple_GET_SIZE(hand) != NC)
        return 0;
    int total = 0;
    for (int i = 0; i < NC; i++) {
        if (!small_int(PyTuple_GET_ITEM(hand, i), 0, MAXN, &v))
            return 0;
        p->hand[i] = (uint8_t)v;
        total += i < NT ? (int)v : 0;
    }
    if (total > MAXTRANSPORTS) /* so that every capped gold fits a byte */
        return 0;
    if (!small_int(PyTuple_GET_ITEM(pos, 8), 0, MAXGOLD, &v))
        return 0;
    p->gold = (uint8_t)v;
    return 1;
}

static void
search_free(Search *s)
{
    free(s->entries);
    free(s->slots);
    free(s->rings);
    free(s->ringslots);
    free(s->walks);
    free(s->moves);
}

static int
search_alloc(Search *s)
{
    s->cap = 256;
    s->entries = malloc(s->cap * sizeof(Entry));
    s->nslots = 512;
    s->slots = malloc(s->nslots * sizeof(int32_t));
    s->ringcap = 16;
    s->rings = malloc(s->ringcap * sizeof(Ring));
    s->nringslots = 32;
    s->ringslots = malloc(s->nringslots * sizeof(int32_t));
    s->nwalkslots = 256;
    s->walks = calloc(s->nwalkslots, sizeof(WalkEntry));
    s->movecap = 256;
    s->moves = malloc(s->movecap * sizeof(Move));
    if (!s->entries || !s->slots || !s->rings || !s->ringslots || !s->walks || !s->moves)
        return -1;
    memset(s->slots, 0xff, s->nslots * sizeof(int32_t));
    memset(s->ringslots, 0xff, s->nringslots * sizeof(int32_t));
    return 0;
}

static PyObject *
solve(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *table, *values, *pos, *budget;
    int extras, neumaier;
    if (!PyArg_ParseTuple(args, "OOOOpp:solve", &table, &values, &pos, &budget, &extras,
                          &neumaier))
        return NULL;
    Search *s = calloc(1, sizeof(Search));
    if (!s)
        return PyErr_NoMemory();
    Pos root;
    if (!read_args(s, table, values, pos, &root)) {
        free(s);
        Py_RETURN_NONE;
    }
    s->extras = extras;
    s->neumaier = neumaier;
    if (budget != Py_None) {
        if (!PyLong_Check(budget)) {
            free(s);
            Py_RETURN_NONE;
        }
        int overflow = 0;
        long long b = PyLong_AsLongLongAndOverflow(budget, &overflow);
        if (b == -1 && PyErr_Occurred()) {
            free(s);
            return NULL;
        }
        s->has_budget = 1;
        s->budget = overflow > 0 ? INT64_MAX : overflow < 0 ? INT64_MIN : (int64_t)b;
    }
    if (search_alloc(s) < 0) {
        search_free(s);
        free(s);
        return PyErr_NoMemory();
    }
    uint8_t first[NC];
    memcpy(first, root.hand, NC);
    Py_BEGIN_ALLOW_THREADS
    best(s, &root, NEG_INF, 0, 0, first);
    Py_END_ALLOW_THREADS
    if (s->abort == 1) {
        search_free(s);
        free(s);
        Py_RETURN_FALSE;
    }
    if (s->abort == 3) { /* too deep for this code */
        search_free(s);
        free(s);
        Py_RETURN_NONE;
    }
    if (s->abort) {
        search_free(s);
        free(s);
        return PyErr_NoMemory();
    }
    PyObject *steps = PyList_New(0);
    if (!steps)
        goto fail;
    Pos at = root;
    for (;;) {
        int64_t e = memo_find(s, &at);
        if (e < 0 || !s->entries[e].has_choice)
            break;
        Entry *en = &s->entries[e];
        PyObject *step = Py_BuildValue("(iii)", en->code, en->town, en->gain);
        if (!step || PyList_Append(steps, step) < 0) {
            Py_XDECREF(step);
            Py_DECREF(steps);
            goto fail;
        }
        Py_DECREF(step);
        at = en->nxt;
    }
    PyObject *left = Py_BuildValue("(iiiiiiiii)", at.hand[0], at.hand[1], at.hand[2],
                                   at.hand[3], at.hand[4], at.hand[5], at.hand[6],
                                   at.hand[7], at.hand[8]);
    search_free(s);
    free(s);
    if (!left) {
        Py_DECREF(steps);
        return NULL;
    }
    return Py_BuildValue("(NN)", steps, left);
fail:
    search_free(s);
    free(s);
    return NULL;
}

static PyMethodDef methods[] = {
    {"solve", solve, METH_VARARGS,
     "The King of the Elves journey search (see kingelves_journey._Search)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kingelves_planner",
    "The King of the Elves journey planner's search, compiled.", -1, methods,
    NULL, NULL, NULL, NULL,
};

_Static_assert(sizeof(Pos) == 24, "a position is three words");

PyMODINIT_FUNC
PyInit__kingelves_planner(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    /* The rules' numbers this code was written for: Python compares them with its own
     * and runs the pure search if they ever differ. */
    PyObject *c = Py_BuildValue("(iiiiiiiii)", GOLD_UNIT, THIEF_TOLL, SPELL_GOLD, SPELL_CARDS,
                                ALL_TOWNS_BONUS, WALKS_AFTER, NO_ONE, ESCORT_SLOT,
                                REVERSE_SLOT);
    if (!c || PyModule_AddObject(m, "CONSTANTS", c) < 0) {
        Py_XDECREF(c);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
