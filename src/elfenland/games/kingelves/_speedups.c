/* The compiled King of the Elves engine: legal actions, apply and clone over plain C
 * arrays, a translation of state.py, which stays the reference (see the Elfenland
 * engine's _speedups.c for the design; tests/kingelves/test_fast_differential.py plays
 * both engines side by side).  The card counts, prices and the action space come from
 * the Python modules through ``configure`` (fast.py): they have one source.
 *
 * As there, nothing from outside reaches the arrays unchecked (issue #22): field setters
 * check every number's range before anything changes (ElfenlandError otherwise), list
 * fields are read as fresh lists, and a state made without __init__ raises.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <structmember.h>

#define MAXP 6
#define NK 19
#define MAXK 3
#define NTRANS 7
#define TBASE 6
#define NO_ONE (-1)
#define TERMINAL_PLAYER (-4)
#define MAXSPELL 256
#define LEGAL_MAX 512
/* core/options.py's bounds for counts and for gold. */
#define MAX_COUNT 1000
#define MAX_GOLD 1000000000L
#define ENGINE_LIST_MAX NK /* the longest list a field holds */
#define ALL_TOWNS ((1L << (MAXP * MAXK)) - 1)

enum { C_GOLD = 13, C_THIEF, C_TREE, C_SEA_MONSTER, C_ESCORT, C_CHANGE };
enum { TERRAIN, GOLD, THIEF, OBSTACLE };
enum { K_PASS, K_NO_TOWN_CARD, K_DRAW, K_BUY, K_ESCORT, K_REVERSE, K_STOP, K_PLAY, K_TAKE,
       K_DISCARD, K_PLACE, K_REMOVE, K_VISIT, K_SPELL, NKIND };
enum { P_BUILDING, P_JOURNEY, P_OVER, NPHASE };
enum { PD_NONE, PD_TAKE, PD_DISCARD_OTHER, PD_DISCARD, NPENDING };

/* ------------------------------------------------------------------ tables */
static int rounds_by_n[MAXP + 1], first_deal, later_deal, banners, nprices, prices[8],
    thief_toll, remove_base, spell_gold, bonus_gold, town_val[6], obstacle_card[6],
    cost_tab[NTRANS][6];
static signed char *a_kind, *a_card, *a_kingdom, *a_town, *a_count;
static short *a_spell;
static int nspell, spell_cards[MAXSPELL][NTRANS];
static int id_simple[NKIND], id_play[6][MAXP], id_take[6], id_discard[NK],
    id_place[4][MAXP][MAXK], id_remove[MAXK], id_visit[NTRANS][4], id_spell[MAXSPELL];
static PyObject *phase_members[NPHASE], *pending_members[NPENDING];

/* ------------------------------------------------------------------ the state */
typedef struct {
    int magic_spell, weak_gold, gold_for_all, rebuild_deck, escort_two_towns,
        no_town_from_discard;
    int n, round, phase, dragon, current, passes, pending, pending_count;
    int hands[MAXP][NK], gold[MAXP], set_aside[MAXP], bought[MAXP], deck[NK], discard[NK];
    long bank;
    int nk[MAXP], towns[MAXP][MAXK][4];
    int at_k, at_i, direction, turned, own_visited, escort, escort_towns, bonus_paid;
    long visited, earned, paid;
    int has_result, nresult, result[MAXP];
    int rng_shared;
    Py_ssize_t length;
} S;

enum { F_HANDS, F_GOLD, F_SET_ASIDE, F_BOUGHT, F_DECK, F_DISCARD, F_KINGDOMS, F_RESULT,
       F_AT, F_N, F_ROUND, F_PHASE, F_DRAGON, F_CURRENT, F_PASSES, F_PENDING,
       F_PENDING_COUNT, F_BANK, F_DIRECTION, F_TURNED, F_OWN_VISITED, F_ESCORT, F_VISITED,
       F_BONUS_PAID, F_EARNED, F_PAID, F_LENGTH, F_ESCORT_TOWNS };

/* The newest actions of a history, not yet made links (as the Elfenland engine keeps
 * its own): the action id, the player and the fact, a number or (the rare
 * declarations and stops) a tuple the buffer holds a reference to.  A link tuple per
 * action cost an allocation per step and, at a game's end, a walk over hundreds of
 * tuples scattered in memory (the batched environment's N = 1,024 games spent a fifth
 * of their time freeing them).  Clones share a buffer: a state owns its first
 * ``hcount`` entries, appends in place while nobody appended past them, and copies
 * them to a buffer of its own otherwise; the buffer holds its ``used`` entries' tuples. */
typedef struct {
    int id, player;
    long long fact;
    PyObject *obj; /* the fact if not a number, else NULL */
} HistEntry;

typedef struct Hist Hist;
#define ENGINE_HISTORY
#define ENGINE_HIST_DROP(e) Py_CLEAR((e)->obj)
#define ENGINE_HIST_KEEP(e) Py_XINCREF((e)->obj)
#define ENGINE_HIST_ID(e) ((e)->id)
#define ENGINE_HIST_PLAYER(e) ((e)->player)
#define ENGINE_HIST_FACT(e) ((e)->obj ? Py_NewRef((e)->obj) : PyLong_FromLongLong((e)->fact))
/* The actions whose fact the log keeps is a tuple (a hand shown, a journey's takings),
 * which only Python can make: the batched environment's threads leave these to the
 * thread holding the GIL (_engine_common.h, api_nogil_may_play). */
#define ENGINE_FACT_NEEDS_PYTHON(id) (a_kind[id] == K_NO_TOWN_CARD || a_kind[id] == K_STOP)

typedef struct {
    PyObject_HEAD
    S st;
    int legal_valid, nlegal;
    int legal[LEGAL_MAX];
    PyObject *rules, *seed, *origin, *rng, *chain, *origin_snapshot;
    /* The history is ``chain`` (links as the pure engine makes them) followed by
     * ``hcount`` entries of ``hist``; reading ``_chain`` makes their links (once). */
    Hist *hist;
    Py_ssize_t hcount;
} Core;

#define ENGINE_OBSERVE observe_checked

/* The code every compiled engine shares (randomness, checked input, the common methods,
 * configure): one copy for all of them. */
#include "../../core/_engine_common.h"

/* Append an entry; ``obj`` (a tuple fact, or NULL) is stolen, also on failure. */
static int hist_append(Core *c, int id, int player, long long fact, PyObject *obj) {
    HistEntry *e = hist_slot(c);
    if (!e) { Py_XDECREF(obj); return -1; }
    e->id = id;
    e->player = player;
    e->fact = fact;
    e->obj = obj;
    return 0;
}

static int kingdom_size(int n);

/* Whether the state can be played: made by __init__ (rules and an Rng), and while the
 * game runs, the player to move, the dragon and the traveller's place within the table. */
static int check_ready(Core *c) {
    if (check_set_up(c) < 0) return -1;
    S *s = &c->st;
    for (int k = 0; k < s->n; k++)
        if (s->nk[k] > kingdom_size(s->n)) {
            PyErr_Format(err_type(), "kingdom %d holds more towns than %d players allow", k,
                         s->n);
            return -1;
        }
    if (s->phase == P_OVER) return 0;
    if (s->current < 0 || s->current >= s->n || s->dragon < 0 || s->dragon >= s->n) {
        PyErr_Format(err_type(), "the player to move (%d) and the dragon (%d) must be seats "
                     "of the %d", s->current, s->dragon, s->n);
        return -1;
    }
    if (s->at_k != NO_ONE && (s->at_k >= s->n || s->at_i < 0 || s->at_i >= s->nk[s->at_k])) {
        PyErr_SetString(err_type(), "the traveller is at no town on the table");
        return -1;
    }
    if (s->escort >= s->n) {
        PyErr_SetString(err_type(), "the escort is in no kingdom");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ queries */
static int kingdom_size(int n) { return n == 2 ? 3 : 2; }

static int banners_left(S *s, int p) {
    int used = 0;
    for (int k = 0; k < s->n; k++)
        for (int i = 0; i < s->nk[k]; i++)
            for (int f = GOLD; f <= OBSTACLE; f++) used += s->towns[k][i][f] == p;
    return banners - used;
}

static int removal_cost(const int *town) {
    return remove_base + (town[GOLD] != NO_ONE) + (town[THIEF] != NO_ONE) +
           (town[OBSTACLE] != NO_ONE);
}

static int towns_on_table(S *s) {
    int t = 0;
    for (int k = 0; k < s->n; k++) t += s->nk[k];
    return t;
}

/* The town the traveller's next visit goes to; 0 if there is none. */
static int next_town(S *s, int *k, int *i) {
    if (!towns_on_table(s)) return 0;
    if (s->at_k == NO_ONE) {
        for (int d = 0; d < s->n; d++) {
            int kk = (s->current + d) % s->n;
            if (s->nk[kk]) { *k = kk; *i = 0; return 1; }
        }
        return 0;
    }
    if (s->turned) { *k = s->at_k; *i = s->at_i; return 1; }
    /* one step round the ring (kingdom by kingdom, right to left) */
    int kk = s->at_k, ii = s->at_i;
    if (s->direction > 0) {
        ii++;
        while (ii >= s->nk[kk]) { kk = (kk + 1) % s->n; ii = 0; if (s->nk[kk]) break; }
    } else {
        ii--;
        while (ii < 0) { kk = (kk - 1 + s->n) % s->n; ii = s->nk[kk] - 1; }
    }
    *k = kk; *i = ii;
    return 1;
}

/* Whether an escort covers a visit to town (k, i); with escort_two_towns only two
 * towns of its kingdom (KingOfTheElvesState._protected). */
static int protected_town(S *s, int k, int i) {
    if (s->escort != k) return 0;
    if (!s->escort_two_towns) return 1;
    return (s->escort_towns >> (k * MAXK + i) & 1) || __builtin_popcount(s->escort_towns) < 2;
}

/* (terrain, obstacle applies, thief owner or NO_ONE, gold card doubles) */
static void visit_terms(S *s, int p, int k, int i, int *terrain, int *obstacle, int *thief,
                        int *doubles) {
    const int *town = s->towns[k][i];
    int prot = protected_town(s, k, i);
    *terrain = town[TERRAIN];
    *obstacle = town[OBSTACLE] != NO_ONE && town[OBSTACLE] != p && !prot;
    *thief = (town[THIEF] != NO_ONE && town[THIEF] != p && !prot) ? town[THIEF] : NO_ONE;
    int owner = town[GOLD];
    *doubles = owner != NO_ONE && (s->gold_for_all || owner == p);
    if (*doubles && s->weak_gold && prot) *doubles = 0;
}

/* no_town_card_from_discard: the deck is empty, the discard pile holds a town card. */
static int no_town_from_discard(S *s) {
    if (!s->no_town_from_discard || sum(s->deck, NK)) return 0;
    for (int t = 0; t < 6; t++) if (s->discard[t]) return 1;
    return 0;
}

static int may_declare_no_town(S *s, int p) {
    for (int t = 0; t < 6; t++) if (s->hands[p][t]) return 0;
    if (s->nk[p]) return 0;
    for (int t = 0; t < 6; t++) if (s->deck[t]) return 1;
    return no_town_from_discard(s);
}

static int may_place(S *s, int p, int card, int k, int i) {
    const int *town = s->towns[k][i];
    int slot = card == C_GOLD ? GOLD : card == C_THIEF ? THIEF : OBSTACLE;
    if (town[slot] != NO_ONE) return 0;
    if ((card == C_TREE || card == C_SEA_MONSTER) && obstacle_card[town[TERRAIN]] != card)
        return 0;
    return !(card == C_GOLD && s->weak_gold && k == p);
}

/* ------------------------------------------------------------------ legal actions */
static void generate(Core *c);

static int ensure_legal(Core *c) {
    if (c->legal_valid) return 0;
    if (check_ready(c) < 0) return -1;
    generate(c);
    return 0;
}

static void generate(Core *c) {
    S *s = &c->st;
    if (s->phase == P_OVER) { /* nobody acts: current is TERMINAL_PLAYER, not a seat */
        c->nlegal = 0;
        c->legal_valid = 1;
        return;
    }
    int *out = c->legal, n = 0, p = s->current;
    const int *hand = s->hands[p];
    if (s->phase == P_BUILDING) {
        if (s->pending == PD_TAKE) {
            for (int t = 0; t < 6; t++) if (s->deck[t]) out[n++] = id_take[t];
        } else if (s->pending == PD_DISCARD) {
            for (int x = 0; x < NK; x++) if (hand[x]) out[n++] = id_discard[x];
        } else if (s->pending == PD_DISCARD_OTHER) {
            for (int x = 6; x < NK; x++) if (hand[x]) out[n++] = id_discard[x];
        } else {
            int cap = kingdom_size(s->n);
            for (int t = 0; t < 6; t++)
                if (hand[t])
                    for (int k = 0; k < s->n; k++) if (s->nk[k] < cap) out[n++] = id_play[t][k];
            if (may_declare_no_town(s, p)) out[n++] = id_simple[K_NO_TOWN_CARD];
            int can_draw = sum(s->deck, NK) > 0 || (s->rebuild_deck && sum(s->discard, NK) > 0);
            if (can_draw) out[n++] = id_simple[K_DRAW];
            if (can_draw && s->bought[p] < nprices && s->gold[p] >= prices[s->bought[p]])
                out[n++] = id_simple[K_BUY];
            if (banners_left(s, p) > 0) {
                for (int card = C_GOLD; card <= C_SEA_MONSTER; card++) {
                    if (!hand[card]) continue;
                    for (int k = 0; k < s->n; k++)
                        for (int i = 0; i < s->nk[k]; i++)
                            if (may_place(s, p, card, k, i))
                                out[n++] = id_place[card - C_GOLD][k][i];
                }
            }
            for (int i = 0; i < s->nk[p]; i++)
                if (s->gold[p] >= removal_cost(s->towns[p][i])) out[n++] = id_remove[i];
            if (s->nk[p] || n == 0) out[n++] = id_simple[K_PASS];
        }
    } else if (s->phase == P_JOURNEY) {
        int k, i;
        if (next_town(s, &k, &i)) {
            int terrain, obstacle, thief, doubles;
            visit_terms(s, p, k, i, &terrain, &obstacle, &thief, &doubles);
            int toll = thief != NO_ONE ? thief_toll : 0;
            if (s->gold[p] >= toll) {
                int before = n;
                for (int t = 0; t < NTRANS; t++) {
                    if (cost_tab[t][terrain] < 0) continue;
                    int need = cost_tab[t][terrain] + obstacle;
                    if (hand[TBASE + t] >= need) out[n++] = id_visit[t][need];
                }
                if (n == before && s->magic_spell && s->gold[p] >= toll + spell_gold) {
                    for (int j = 0; j < nspell; j++) {
                        int ok = 1;
                        for (int t = 0; t < NTRANS && ok; t++)
                            ok = spell_cards[j][t] <= hand[TBASE + t];
                        if (ok) out[n++] = id_spell[j];
                    }
                }
            }
            int entering = s->at_k == NO_ONE || s->at_k != k;
            if (hand[C_ESCORT] && entering && s->escort != k) out[n++] = id_simple[K_ESCORT];
        }
        if (hand[C_CHANGE] && s->own_visited && !s->turned) out[n++] = id_simple[K_REVERSE];
        out[n++] = id_simple[K_STOP];
    }
    c->nlegal = n;
    c->legal_valid = 1;
}

/* ------------------------------------------------------------------ flow */
/* A card from the deck (rebuilt from the discard pile if allowed); -2 if none. */
static int draw_card(Core *c) {
    S *s = &c->st;
    if (sum(s->deck, NK) == 0) {
        if (!s->rebuild_deck || sum(s->discard, NK) == 0) return -2;
        memcpy(s->deck, s->discard, sizeof s->deck);
        memset(s->discard, 0, sizeof s->discard);
    }
    return draw_counts(c, s->deck, NK);
}

static int deal(Core *c, int cards) {
    S *s = &c->st;
    for (int j = 0; j < cards; j++)
        for (int i = 0; i < s->n; i++) {
            int got = draw_card(c);
            if (got == -1) return -1;
            if (got == -2) return 0;
            s->hands[(s->dragon + i) % s->n][got]++;
        }
    return 0;
}

static void reset_journey(S *s) {
    s->at_k = s->at_i = NO_ONE;
    s->direction = 1;
    s->turned = 0;
    s->own_visited = 0;
    s->escort = NO_ONE;
    s->escort_towns = 0;
    s->visited = 0;
    s->bonus_paid = 0;
    s->earned = 0;
    s->paid = 0;
}

static int start_round(Core *c) {
    S *s = &c->st;
    if (deal(c, s->round == 1 ? first_deal : later_deal) < 0) return -1;
    s->phase = P_BUILDING;
    s->current = s->dragon;
    s->passes = 0;
    s->pending = PD_NONE;
    s->pending_count = 0;
    return 0;
}

static void finish(S *s) {
    s->phase = P_OVER;
    s->current = TERMINAL_PLAYER;
    int best = s->gold[0];
    for (int p = 1; p < s->n; p++) if (s->gold[p] > best) best = s->gold[p];
    s->nresult = 0;
    for (int p = 0; p < s->n; p++) if (s->gold[p] == best) s->result[s->nresult++] = p;
    s->has_result = 1;
}

static int end_round(Core *c) {
    S *s = &c->st;
    for (int k = 0; k < s->n; k++)
        for (int i = 0; i < s->nk[k]; i++) {
            const int *t = s->towns[k][i];
            s->deck[t[TERRAIN]]++;
            if (t[GOLD] != NO_ONE) s->deck[C_GOLD]++;
            if (t[THIEF] != NO_ONE) s->deck[C_THIEF]++;
            if (t[OBSTACLE] != NO_ONE) s->deck[obstacle_card[t[TERRAIN]]]++;
        }
    if (s->escort != NO_ONE) s->deck[C_ESCORT]++;
    for (int x = 0; x < NK; x++) { s->deck[x] += s->discard[x]; s->discard[x] = 0; }
    memset(s->nk, 0, sizeof s->nk);
    memset(s->bought, 0, sizeof s->bought);
    if (s->round >= rounds_by_n[s->n]) {
        finish(s);
        return 0;
    }
    s->round++;
    /* The dragon moves one seat left from wherever it lies. */
    s->dragon = (s->dragon + 1) % s->n;
    return start_round(c);
}

static int end_turn(Core *c, int passed) {
    S *s = &c->st;
    s->pending = PD_NONE;
    s->pending_count = 0;
    s->passes = passed ? s->passes + 1 : 0;
    if (s->passes >= s->n) {
        for (int p = 0; p < s->n; p++) { s->bank += s->set_aside[p]; s->set_aside[p] = 0; }
        s->phase = P_JOURNEY;
        s->passes = 0;
        s->current = s->dragon;
        reset_journey(s);
    } else {
        s->current = (s->current + 1) % s->n;
    }
    return 0;
}

static int end_journey(Core *c) {
    S *s = &c->st;
    if (s->escort != NO_ONE) s->discard[C_ESCORT]++;
    reset_journey(s);
    s->current = (s->current + 1) % s->n;
    if (s->current == s->dragon) return end_round(c);
    return 0;
}

static long pay_out(S *s, int p, long amount) {
    if (amount > s->bank) amount = s->bank;
    s->bank -= amount;
    s->gold[p] += (int)amount;
    s->earned += amount;
    return amount;
}

/* ------------------------------------------------------------------ effects */
/* Play a legal action: the fact the log keeps for it in *out, or a tuple fact (a new
 * reference) in *obj; 0, or -1 with an error.  A number is kept as a number, so every
 * action but the two tuple ones makes no Python object. */
static int do_action(Core *c, int id, long long *out, PyObject **obj) {
    S *s = &c->st;
    int p = s->current, k = a_kind[id], card = a_card[id];
    int *hand = s->hands[p];
    long long fact = 0;
    switch (k) {
    case K_PLAY: {
        hand[card]--;
        int *t = s->towns[a_kingdom[id]][s->nk[a_kingdom[id]]++];
        t[TERRAIN] = card; t[GOLD] = t[THIEF] = t[OBSTACLE] = NO_ONE;
        end_turn(c, 0);
        break;
    }
    case K_NO_TOWN_CARD: {
        /* the hand shown, and a last 1 if the discard pile became the deck */
        int rebuilt = no_town_from_discard(s);
        PyObject *tup = PyTuple_New(NK + rebuilt);
        if (!tup) return -1;
        for (int x = 0; x < NK + rebuilt; x++) {
            PyObject *v = PyLong_FromLong(x < NK ? hand[x] : 1);
            if (!v) { Py_DECREF(tup); return -1; }
            PyTuple_SET_ITEM(tup, x, v);
        }
        if (rebuilt) {
            memcpy(s->deck, s->discard, sizeof s->deck);
            memset(s->discard, 0, sizeof s->discard);
        }
        s->pending = PD_TAKE;
        *obj = tup;
        return 0;
    }
    case K_TAKE:
        s->deck[card]--;
        hand[card]++;
        if (sum(hand, NK) > 1) {
            s->pending = PD_DISCARD_OTHER;
            s->pending_count = 1;
        } else {
            end_turn(c, 0);
        }
        break;
    case K_DRAW: {
        int drawn[NK] = {0}, cnt = 0;
        for (int j = 0; j < 3; j++) {
            int got = draw_card(c);
            if (got == -1) return -1;
            if (got == -2) break;
            hand[got]++;
            drawn[got]++;
            cnt++;
        }
        /* the drawn cards, sorted by kind, 5 bits each above the count */
        int shift = 2;
        fact = cnt;
        for (int x = 0; x < NK; x++)
            for (int m = 0; m < drawn[x]; m++) { fact |= (long long)x << shift; shift += 5; }
        s->pending = PD_DISCARD;
        s->pending_count = sum(hand, NK) < 4 ? sum(hand, NK) : 4;
        if (s->pending_count == 0) end_turn(c, 0);
        break;
    }
    case K_DISCARD:
        hand[card]--;
        s->discard[card]++;
        s->pending_count--;
        if (s->pending_count == 0 || sum(hand, NK) == 0) end_turn(c, 0);
        break;
    case K_BUY: {
        int price = prices[s->bought[p]];
        s->gold[p] -= price;
        s->set_aside[p] += price;
        s->bought[p]++;
        int got = draw_card(c);
        if (got == -1) return -1;
        if (got == -2) { PyErr_SetString(PyExc_AssertionError, "buy from an empty deck"); return -1; }
        hand[got]++;
        fact = price | (got << 4);
        end_turn(c, 0);
        break;
    }
    case K_PLACE: {
        hand[card]--;
        int *t = s->towns[a_kingdom[id]][a_town[id]];
        t[card == C_GOLD ? GOLD : card == C_THIEF ? THIEF : OBSTACLE] = p;
        fact = t[TERRAIN];
        end_turn(c, 0);
        break;
    }
    case K_REMOVE: {
        int i = a_town[id], town[4];
        memcpy(town, s->towns[p][i], sizeof town);
        for (int j = i; j < s->nk[p] - 1; j++) memcpy(s->towns[p][j], s->towns[p][j + 1], sizeof town);
        s->nk[p]--;
        int cost = removal_cost(town);
        s->gold[p] -= cost;
        s->bank += cost;
        s->discard[town[TERRAIN]]++;
        if (town[GOLD] != NO_ONE) s->discard[C_GOLD]++;
        if (town[THIEF] != NO_ONE) s->discard[C_THIEF]++;
        if (town[OBSTACLE] != NO_ONE) s->discard[obstacle_card[town[TERRAIN]]]++;
        fact = cost | (town[TERRAIN] << 16);
        end_turn(c, 0);
        break;
    }
    case K_PASS:
        end_turn(c, 1);
        break;
    case K_VISIT:
    case K_SPELL: {
        int tk, ti, terrain, obstacle, thief, doubles, dropped = 0;
        if (!next_town(s, &tk, &ti)) {
            PyErr_SetString(PyExc_AssertionError, "a visit needs a town");
            return -1;
        }
        if (s->escort != NO_ONE && s->escort != tk) {
            s->discard[C_ESCORT]++;
            s->escort = NO_ONE;
            s->escort_towns = 0;
            dropped = 1;
        }
        if (s->escort_two_towns && protected_town(s, tk, ti))
            s->escort_towns |= 1 << (tk * MAXK + ti);
        visit_terms(s, p, tk, ti, &terrain, &obstacle, &thief, &doubles);
        if (k == K_VISIT) {
            hand[card] -= a_count[id];
            s->discard[card] += a_count[id];
        } else {
            const int *m = spell_cards[a_spell[id]];
            for (int t = 0; t < NTRANS; t++) {
                hand[TBASE + t] -= m[t];
                s->discard[TBASE + t] += m[t];
            }
            s->gold[p] -= spell_gold;
            s->bank += spell_gold;
            s->paid += spell_gold;
        }
        if (thief != NO_ONE) {
            s->gold[p] -= thief_toll;
            s->gold[thief] += thief_toll;
            s->paid += thief_toll;
        }
        long earned = pay_out(s, p, (long)town_val[terrain] * (doubles ? 2 : 1));
        s->visited |= 1L << (tk * MAXK + ti);
        long all = 0, bonus = -1;
        for (int kk = 0; kk < s->n; kk++)
            for (int ii = 0; ii < s->nk[kk]; ii++) all |= 1L << (kk * MAXK + ii);
        if (!s->bonus_paid && s->visited == all) {
            s->bonus_paid = 1;
            bonus = pay_out(s, p, bonus_gold);
        }
        s->at_k = tk;
        s->at_i = ti;
        s->turned = 0;
        if (tk == p) s->own_visited = 1;
        /* escort dropped, thief+1, kingdom, town, terrain, earned, bonus+1 */
        fact = dropped | ((thief + 1) << 1) | (tk << 4) | (ti << 7) | (terrain << 9)
               | ((long long)earned << 12) | ((long long)(bonus + 1) << 36);
        break;
    }
    case K_ESCORT: {
        int tk, ti;
        if (!next_town(s, &tk, &ti)) {
            PyErr_SetString(PyExc_AssertionError, "an escort needs a town");
            return -1;
        }
        hand[C_ESCORT]--;
        if (s->escort != NO_ONE) s->discard[C_ESCORT]++;
        s->escort = tk;
        s->escort_towns = 0;
        fact = tk;
        break;
    }
    case K_REVERSE:
        hand[C_CHANGE]--;
        s->discard[C_CHANGE]++;
        s->direction = -s->direction;
        s->turned = !s->turned;
        break;
    case K_STOP: {
        PyObject *tup = Py_BuildValue("(ll)", s->earned, s->paid);
        if (!tup) return -1;
        if (end_journey(c) < 0) { Py_DECREF(tup); return -1; }
        *obj = tup;
        return 0;
    }
    }
    *out = fact;
    return 0;
}

static int play(Core *c, Py_ssize_t id, PyObject *action) {
    int player = c->st.current;
    c->legal_valid = 0;
    long long x = 0;
    PyObject *fact = NULL;
    if (do_action(c, (int)id, &x, &fact) < 0) return -1;
    (void)action; /* always actions_tuple[id]: the id is what the history keeps */
    if (hist_append(c, (int)id, player, x, fact) < 0) return -1;
    c->st.length++;
    return 0;
}

/* position._deal_unseen: the other hands and the deck dealt again from the cards hidden
 * from ``player``; with ``keep`` the deck keeps exactly its town cards. */
static int deal_unseen(S *s, S *t, int player, PyObject *rng, int keep) {
    int pool[NK], hands[MAXP][NK], seats[NK * 16 + 8], nseats = 0;
    /* A player in the middle of "no town card" has shown their hand: everyone knows it. */
    int shown = s->pending == PD_TAKE || s->pending == PD_DISCARD_OTHER ? s->current : NO_ONE;
    memcpy(pool, s->deck, sizeof pool);
    memset(hands, 0, sizeof hands);
    for (int p = 0; p < s->n; p++) {
        if (p == player || p == shown) continue;
        for (int x = 0; x < NK; x++) pool[x] += s->hands[p][x];
    }
    int total_seats = 0;
    for (int p = 0; p < s->n; p++) if (p != player && p != shown) total_seats += sum(s->hands[p], NK);
    int *seat = total_seats <= (int)(sizeof seats / sizeof *seats) ? seats
                : PyMem_Malloc(sizeof(int) * (size_t)total_seats);
    if (!seat) { PyErr_NoMemory(); return -1; }
    for (int p = 0; p < s->n; p++) {
        if (p == player || p == shown) continue;
        for (int j = sum(s->hands[p], NK); j > 0; j--) seat[nseats++] = p;
    }
    int rc = -1;
    if (keep) {
        int towns[NK] = {0};
        for (int x = 0; x < 6; x++) { towns[x] = pool[x] - s->deck[x]; pool[x] = s->deck[x]; }
        PyObject *list = PyList_New(nseats);
        if (!list) goto done;
        for (int j = 0; j < nseats; j++) {
            PyObject *v = PyLong_FromLong(seat[j]);
            if (!v) { Py_DECREF(list); goto done; }
            PyList_SET_ITEM(list, j, v);
        }
        PyObject *ok = PyObject_CallMethodOneArg(rng, s_shuffle, list);
        if (!ok) { Py_DECREF(list); goto done; }
        Py_DECREF(ok);
        for (int j = 0; j < nseats; j++) seat[j] = (int)PyLong_AsLong(PyList_GET_ITEM(list, j));
        Py_DECREF(list);
        int held = sum(towns, NK), j = 0;
        for (; j < held && j < nseats; j++) {
            int k = draw_counts_with(rng, towns, NK);
            if (k < 0) goto done;
            hands[seat[j]][k]++;
        }
        int non_town[NK];
        memcpy(non_town, pool, sizeof non_town);
        for (int x = 0; x < 6; x++) non_town[x] = 0;
        for (; j < nseats; j++) {
            int k = draw_counts_with(rng, non_town, NK);
            if (k < 0) goto done;
            hands[seat[j]][k]++;
            pool[k]--;
        }
    } else {
        for (int j = 0; j < nseats; j++) {
            int k = draw_counts_with(rng, pool, NK);
            if (k < 0) goto done;
            hands[seat[j]][k]++;
        }
    }
    for (int p = 0; p < s->n; p++)
        if (p != player && p != shown) memcpy(t->hands[p], hands[p], sizeof hands[p]);
    memcpy(t->deck, pool, sizeof pool);
    rc = 0;
done:
    if (seat != seats) PyMem_Free(seat);
    return rc;
}

/* position.resample, draw for draw; the origin is kept as a snapshot and written out
 * only if someone reads it. */
static PyObject *Core_resample(Core *c, PyObject *args) {
    int player;
    PyObject *rng;
    Core *d = resample_begin(c, args, &player, &rng);
    if (!d) return NULL;
    S *s = &c->st;
    S *t = &d->st;
    int acting = player == s->current && s->phase == P_BUILDING;
    if (acting && s->pending == PD_TAKE) {
        if (deal_unseen(s, t, player, rng, 1) < 0) goto fail;
    } else {
        int declare = may_declare_no_town(s, player), settled = 0;
        for (int tries = 0; tries < 20; tries++) {
            if (deal_unseen(s, t, player, rng, 0) < 0) goto fail;
            if (!acting || s->pending != PD_NONE || may_declare_no_town(t, player) == declare) {
                settled = 1;
                break;
            }
        }
        if (!settled && deal_unseen(s, t, player, rng, 1) < 0) goto fail;
    }
    return resample_finish(d, rng);
fail:
    Py_DECREF(d);
    return NULL;
}

/* A new game: rules, seed and a fresh Rng are set first (KingOfTheElvesState.__init__). */
static PyObject *Core_start(Core *c, PyObject *args) {
    int n;
    long gold;
    PyObject *deck, *gold_obj;
    int deck_counts[NK];
    if (!PyArg_ParseTuple(args, "iOO", &n, &gold_obj, &deck)) return NULL;
    if (n < 2 || n > MAXP) { PyErr_SetString(err_type(), "2 to 6 players"); return NULL; }
    if (!c->rng || !c->rules) {
        PyErr_SetString(err_type(), "no rules or rng: set them before _start");
        return NULL;
    }
    if (read_long(gold_obj, 0, MAX_GOLD / MAXP, "starting gold", &gold) < 0 ||
        read_ints(deck, deck_counts, NK, "deck", 0, MAX_COUNT) < 0)
        return NULL;
    c->st.gold[0] = (int)gold;
    c->legal_valid = 0;
    S *s = &c->st;
    int start_gold = s->gold[0];
    S keep = *s;
    memset(s, 0, sizeof *s);
    s->magic_spell = keep.magic_spell; s->weak_gold = keep.weak_gold;
    s->gold_for_all = keep.gold_for_all; s->rebuild_deck = keep.rebuild_deck;
    s->escort_two_towns = keep.escort_two_towns;
    s->no_town_from_discard = keep.no_town_from_discard;
    s->n = n;
    s->round = 1;
    s->phase = P_BUILDING;
    reset_journey(s);
    for (int p = 0; p < n; p++) s->gold[p] = start_gold;
    memcpy(s->deck, deck_counts, sizeof deck_counts);
    Py_CLEAR(c->chain);
    hist_release(c);
    Py_CLEAR(c->origin);
    Py_CLEAR(c->origin_snapshot);
    if (start_round(c) < 0) return NULL;
    Py_RETURN_NONE;
}

/* The attributes (see FieldSpec): kind, place, length and bounds of each. */
static const FieldSpec fields[] = {
    [F_HANDS] = OWN_FIELD("hands"),
    [F_GOLD] = OWN_FIELD("gold"),
    [F_SET_ASIDE] = OWN_FIELD("set_aside"),
    [F_BOUGHT] = FLD(FK_INTS, bought, bought, FV_N, 0, 0, MAX_COUNT),
    [F_DECK] = FLD(FK_INTS, deck, deck, NK, 0, 0, MAX_COUNT),
    [F_DISCARD] = FLD(FK_INTS, discard, discard, NK, 0, 0, MAX_COUNT),
    [F_KINGDOMS] = OWN_FIELD("kingdoms"),
    [F_RESULT] = OWN_FIELD("result"),
    [F_AT] = OWN_FIELD("at"),
    [F_N] = OWN_FIELD("n"),
    [F_ROUND] = SCALAR(FK_INT, round, 0, MAX_COUNT),
    [F_PHASE] = OWN_FIELD("phase"),
    [F_DRAGON] = SCALAR(FK_INT, dragon, 0, FV_LAST),
    [F_CURRENT] = OWN_FIELD("current"),
    [F_PASSES] = SCALAR(FK_INT, passes, 0, MAX_COUNT),
    [F_PENDING] = OWN_FIELD("pending"),
    [F_PENDING_COUNT] = SCALAR(FK_INT, pending_count, 0, MAX_COUNT),
    [F_BANK] = OWN_FIELD("bank"),
    [F_DIRECTION] = OWN_FIELD("direction"),
    [F_TURNED] = SCALAR(FK_BOOL, turned, 0, 1),
    [F_OWN_VISITED] = SCALAR(FK_BOOL, own_visited, 0, 1),
    [F_ESCORT] = SCALAR(FK_INT, escort, NO_ONE, FV_LAST),
    [F_VISITED] = SCALAR(FK_LONG, visited, 0, ALL_TOWNS),
    [F_BONUS_PAID] = SCALAR(FK_BOOL, bonus_paid, 0, 1),
    [F_EARNED] = SCALAR(FK_LONG, earned, 0, MAX_GOLD),
    [F_PAID] = SCALAR(FK_LONG, paid, 0, MAX_GOLD),
    [F_LENGTH] = FLD(FK_SSIZE, _length, length, 0, 0, 0, LONG_MAX),
    [F_ESCORT_TOWNS] = SCALAR(FK_INT, escort_towns, 0, ALL_TOWNS),
};

/* The fields whose reading is King of the Elves' own. */
static PyObject *get_own_field(Core *c, int f) {
    S *s = &c->st;
    switch (f) {
    case F_N: return PyLong_FromLong(s->n);
    case F_PHASE: return Py_NewRef(phase_members[s->phase]);
    case F_CURRENT: return PyLong_FromLong(s->current);
    case F_PENDING: return Py_NewRef(pending_members[s->pending]);
    case F_BANK: return PyLong_FromLong(s->bank);
    case F_DIRECTION: return PyLong_FromLong(s->direction);
    case F_HANDS: {
        PyObject *l = PyList_New(s->n);
        if (!l) return NULL;
        for (int p = 0; p < s->n; p++) {
            PyObject *row = int_list(s->hands[p], NK);
            if (!row) { Py_DECREF(l); return NULL; }
            PyList_SET_ITEM(l, p, row);
        }
        return l;
    }
    case F_GOLD: return int_list(s->gold, s->n);
    case F_SET_ASIDE: return int_list(s->set_aside, s->n);
    case F_RESULT: return get_result(s);
    case F_AT: return Py_BuildValue("(ii)", s->at_k, s->at_i);
    case F_KINGDOMS: {
        PyObject *l = PyList_New(s->n);
        if (!l) return NULL;
        for (int k = 0; k < s->n; k++) {
            PyObject *kl = PyList_New(s->nk[k]);
            if (!kl) { Py_DECREF(l); return NULL; }
            PyList_SET_ITEM(l, k, kl);
            for (int i = 0; i < s->nk[k]; i++) {
                PyObject *t = int_list(s->towns[k][i], 4);
                if (!t) { Py_DECREF(l); return NULL; }
                PyList_SET_ITEM(kl, i, t);
            }
        }
        return l;
    }

    }
    PyErr_SetString(PyExc_AttributeError, "no such field");
    return NULL;
}

/* All the gold in the game (players', set aside, the bank) with one field replaced:
 * it may not pass MAX_GOLD, so that no sum of it overflows an int. */
static long gold_total(S *s, const int *gold, const int *set_aside, long bank) {
    long t = bank;
    for (int p = 0; p < s->n; p++) t += (long)gold[p] + set_aside[p];
    return t;
}

/* The fields whose checks are King of the Elves' own: 0, or -1 with the state unchanged. */
static int set_own_field(Core *c, int f, PyObject *v) {
    S *s = &c->st;
    int n = s->n, rc = 0;
    long x = 0;
    switch (f) {
    case F_N:
        if (read_long(v, 2, MAXP, "n (players)", &x) < 0) return -1;
        if (s->phase != P_OVER && (s->current >= x || s->dragon >= x)) {
            PyErr_SetString(err_type(), "n: the player to move and the dragon must stay seats");
            return -1;
        }
        for (int k = 0; k < MAXP; k++)
            if (s->nk[k] > (k < x ? kingdom_size((int)x) : 0)) {
                PyErr_SetString(err_type(), "n: the kingdoms on the table must still fit");
                return -1;
            }
        s->n = (int)x; break;
    case F_CURRENT: /* a seat, or the finished game's "nobody" */
        if (read_long(v, TERMINAL_PLAYER, n - 1, "current", &x) < 0) return -1;
        if (x < 0 && x != TERMINAL_PLAYER) {
            PyErr_Format(err_type(), "current: a seat 0 to %d (%d once the game is over)",
                         n - 1, TERMINAL_PLAYER);
            return -1;
        }
        s->current = (int)x; break;
    case F_BANK:
        if ((rc = read_long(v, 0, MAX_GOLD, "bank", &x)) < 0) break;
        if (gold_total(s, s->gold, s->set_aside, x) > MAX_GOLD) {
            PyErr_SetString(err_type(), "bank: all the gold in the game is at most 10**9");
            return -1;
        }
        s->bank = x; break;
    case F_DIRECTION:
        if ((rc = read_long(v, -1, 1, "direction", &x)) < 0) break;
        if (x == 0) { PyErr_SetString(err_type(), "direction: 1 or -1"); return -1; }
        s->direction = (int)x; break;
    case F_PHASE: {
        int i = 0;
        while (i < NPHASE && phase_members[i] != v) i++;
        if (i == NPHASE) { PyErr_SetString(err_type(), "phase: a Phase"); return -1; }
        s->phase = i; break;
    }
    case F_PENDING: {
        int i = 0;
        while (i < NPENDING && pending_members[i] != v) i++;
        if (i == NPENDING) { PyErr_SetString(err_type(), "pending: a Pending"); return -1; }
        s->pending = i; break;
    }
    case F_HANDS: {
        int tmp[MAXP][NK];
        if (!PyList_Check(v) && !PyTuple_Check(v)) {
            PyErr_SetString(err_type(), "hands: a list");
            return -1;
        }
        if (PySequence_Fast_GET_SIZE(v) != n) {
            PyErr_SetString(err_type(), "hands: one per player");
            return -1;
        }
        for (int p = 0; p < n; p++)
            if (read_ints(PySequence_Fast_GET_ITEM(v, p), tmp[p], NK, "hands", 0, MAX_COUNT) < 0)
                return -1;
        memcpy(s->hands, tmp, sizeof(tmp[0]) * (size_t)n);
        break;
    }
    case F_GOLD:
    case F_SET_ASIDE: {
        int tmp[MAXP];
        const char *what = f == F_GOLD ? "gold" : "set_aside";
        if ((rc = read_ints(v, tmp, n, what, 0, MAX_GOLD)) < 0) break;
        if (gold_total(s, f == F_GOLD ? tmp : s->gold, f == F_GOLD ? s->set_aside : tmp,
                       s->bank) > MAX_GOLD) {
            PyErr_Format(err_type(), "%s: all the gold in the game is at most 10**9", what);
            return -1;
        }
        memcpy(f == F_GOLD ? s->gold : s->set_aside, tmp, sizeof(int) * (size_t)n);
        break;
    }
    case F_AT: {
        int at[2];
        if ((rc = read_ints(v, at, 2, "at", NO_ONE, MAXP - 1)) < 0) break;
        if ((at[0] == NO_ONE) != (at[1] == NO_ONE) || at[0] >= n || at[1] >= MAXK) {
            PyErr_SetString(err_type(), "at: (kingdom, town) on the table, or (-1, -1)");
            return -1;
        }
        s->at_k = at[0]; s->at_i = at[1];
        break;
    }
    case F_RESULT: rc = set_result(s, v); break;
    case F_KINGDOMS: {
        int nk[MAXP] = {0}, towns[MAXP][MAXK][4], size = kingdom_size(n);
        if (!PyList_Check(v) && !PyTuple_Check(v)) {
            PyErr_SetString(err_type(), "kingdoms: a list");
            return -1;
        }
        if (PySequence_Fast_GET_SIZE(v) != n) {
            PyErr_SetString(err_type(), "kingdoms: one per player");
            return -1;
        }
        for (int k = 0; k < n; k++) {
            PyObject *kl = PySequence_Fast_GET_ITEM(v, k);
            if (!PyList_Check(kl) && !PyTuple_Check(kl)) {
                PyErr_SetString(err_type(), "kingdoms: a list of towns per player");
                return -1;
            }
            Py_ssize_t len = PySequence_Fast_GET_SIZE(kl);
            if (len > size) {
                PyErr_Format(err_type(), "kingdoms: a kingdom holds at most %d towns", size);
                return -1;
            }
            nk[k] = (int)len;
            for (int i = 0; i < len; i++) {
                PyObject *t = PySequence_Fast_GET_ITEM(kl, i);
                /* [terrain, gold card's owner, thief's owner, obstacle's owner] */
                if (read_ints(t, towns[k][i], 4, "town", NO_ONE, 5) < 0) return -1;
                const int *w = towns[k][i];
                if (w[TERRAIN] < 0 || w[GOLD] >= n || w[THIEF] >= n || w[OBSTACLE] >= n) {
                    PyErr_Format(err_type(), "town: [terrain 0 to 5, then the owners of its "
                                 "gold card, thief and obstacle: -1 to %d]", n - 1);
                    return -1;
                }
            }
        }
        memcpy(s->nk, nk, sizeof nk);
        memcpy(s->towns, towns, sizeof towns);
        break;
    }
    default:
        PyErr_SetString(PyExc_AttributeError, "no such field");
        return -1;
    }
    return rc;
}

static int read_rule_bool(PyObject *rules, const char *name, int *out) {
    PyObject *v = PyObject_GetAttrString(rules, name);
    if (!v) return -1;
    int b = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (b < 0) return -1;
    *out = b;
    return 0;
}

static int set_rules(Core *c, PyObject *v, void *Py_UNUSED(u)) {
    S t = c->st;
    if (!v) { PyErr_SetString(PyExc_AttributeError, "rules cannot be deleted"); return -1; }
    if (read_rule_bool(v, "magic_spell", &t.magic_spell) < 0 ||
        read_rule_bool(v, "weak_gold", &t.weak_gold) < 0 ||
        read_rule_bool(v, "gold_for_all", &t.gold_for_all) < 0 ||
        read_rule_bool(v, "rebuild_deck", &t.rebuild_deck) < 0 ||
        read_rule_bool(v, "escort_two_towns", &t.escort_two_towns) < 0 ||
        read_rule_bool(v, "no_town_card_from_discard", &t.no_town_from_discard) < 0)
        return -1;
    c->st = t;
    c->legal_valid = 0;
    Py_INCREF(v);
    Py_XSETREF(c->rules, v);
    return 0;
}


static int set_ignore(Core *Py_UNUSED(c), PyObject *Py_UNUSED(v), void *Py_UNUSED(u)) { return 0; }

/* A fresh state's non-zero fields (Core_new's). */
static void fresh_state(S *s) {
    s->n = 2;
    reset_journey(s);
}

#define ENGINE_TYPE_NAME "elfenland.games.kingelves._speedups.Core"
#define ENGINE_TYPE_DOC "The compiled King of the Elves state (base of FastKingOfTheElvesState)."
#define ENGINE_MODULE_DOC "The compiled King of the Elves engine (see fast.py)."
#define ENGINE_CONFIGURE_DOC "Hand over the rules' tables."
#define ENGINE_FRESH fresh_state
#define ENGINE_START_ARGS METH_VARARGS
#define ENGINE_OBS_READY check_ready
#define ENGINE_EXTRA_GETSET                                                         \
    {"_legal_ids", (getter)get_none, (setter)set_invalidate, NULL, NULL},           \
    {"_ring", (getter)get_none, (setter)set_ignore, NULL, NULL},
/* Clone, the observation wrappers, the type and the module, shared with the other
 * engines. */
#include "../../core/_engine_type.h"

static PyObject *configure_tables(PyObject *d) {
    int consts[8];
    if (int_vector(d, "rounds", rounds_by_n, MAXP + 1) < 0 ||
        int_vector(d, "constants", consts, 8) < 0 ||
        int_vector(d, "town_value", town_val, 6) < 0 ||
        int_vector(d, "obstacle_card", obstacle_card, 6) < 0)
        return NULL;
    first_deal = consts[0]; later_deal = consts[1]; banners = consts[2];
    thief_toll = consts[3]; remove_base = consts[4]; spell_gold = consts[5];
    bonus_gold = consts[6]; nprices = consts[7];
    if (nprices > 8) { PyErr_SetString(PyExc_ValueError, "prices"); return NULL; }
    if (int_vector(d, "prices", prices, nprices) < 0) return NULL;
    PyObject *v = get_key(d, "cost");
    if (!v) return NULL;
    for (int t = 0; t < NTRANS; t++) {
        PyObject *row = PySequence_GetItem(v, t);
        if (!row) return NULL;
        for (int x = 0; x < 6; x++)
            if (get_int_item(row, x, &cost_tab[t][x]) < 0) { Py_DECREF(row); return NULL; }
        Py_DECREF(row);
    }
    if (!(v = get_key(d, "spells"))) return NULL;
    nspell = (int)PySequence_Length(v);
    if (nspell < 0 || nspell > MAXSPELL) { PyErr_SetString(PyExc_ValueError, "spells"); return NULL; }
    for (int j = 0; j < nspell; j++) {
        PyObject *row = PySequence_GetItem(v, j);
        if (!row) return NULL;
        for (int t = 0; t < NTRANS; t++)
            if (get_int_item(row, t, &spell_cards[j][t]) < 0) { Py_DECREF(row); return NULL; }
        Py_DECREF(row);
    }
    if (!(v = get_key(d, "actions"))) return NULL;
    if (!PyTuple_Check(v)) { PyErr_SetString(PyExc_TypeError, "actions: a tuple"); return NULL; }
    PyObject *decoded = get_key(d, "decoded");
    if (!decoded) return NULL;
    NACT = PyTuple_GET_SIZE(v);
    if (PySequence_Length(decoded) != NACT) { PyErr_SetString(PyExc_ValueError, "decoded"); return NULL; }
    Py_INCREF(v);
    Py_XSETREF(actions_tuple, v);
    PyMem_Free(a_kind);
    PyMem_Free(a_spell);
    a_kind = PyMem_Malloc((size_t)NACT * 5);
    a_spell = PyMem_Malloc(sizeof(short) * (size_t)NACT);
    if (!a_kind || !a_spell) return PyErr_NoMemory();
    a_card = a_kind + NACT; a_kingdom = a_card + NACT; a_town = a_kingdom + NACT;
    a_count = a_town + NACT;
    for (Py_ssize_t i = 0; i < NACT; i++) {
        int f[6]; /* kind, card, kingdom, town, count, spell index */
        PyObject *row = PySequence_GetItem(decoded, i);
        if (!row) return NULL;
        for (int j = 0; j < 6; j++)
            if (get_int_item(row, j, &f[j]) < 0) { Py_DECREF(row); return NULL; }
        Py_DECREF(row);
        a_kind[i] = f[0]; a_card[i] = f[1]; a_kingdom[i] = f[2]; a_town[i] = f[3];
        a_count[i] = f[4]; a_spell[i] = f[5];
        int id = (int)i;
        switch (f[0]) {
        case K_PLAY: id_play[f[1]][f[2]] = id; break;
        case K_TAKE: id_take[f[1]] = id; break;
        case K_DISCARD: id_discard[f[1]] = id; break;
        case K_PLACE: id_place[f[1] - C_GOLD][f[2]][f[3]] = id; break;
        case K_REMOVE: id_remove[f[3]] = id; break;
        case K_VISIT: id_visit[f[1] - TBASE][f[4]] = id; break;
        case K_SPELL: id_spell[f[5]] = id; break;
        default: id_simple[f[0]] = id; break;
        }
    }
    if (configure_members(d, "phases", phase_members, NPHASE) < 0 ||
        configure_members(d, "pendings", pending_members, NPENDING) < 0 ||
        configure_types(d) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ observations
 * For the research adapters (elfenland/envs/observation.py, which stays the reference:
 * tests/envs/test_observation_fast.py demands the same numbers, bit for bit).  The
 * vector is written straight into a caller's float32 buffer; the layout is the one
 * ``_kingelves_layout`` documents, rebuilt here from n.  Only what ``view(player)``
 * shows goes in: the hand of ``player`` alone, gold totals of others only once the
 * game is over. */

#define OBS_SEAT (5 + NK)

/* Offsets of the shared blocks (the seats' blocks follow them). */
typedef struct {
    int phase, pending, pending_count, passes, round, rounds, dragon, current, deck, discard,
        set_aside, rules, town, terrain, gold, thief, obstacle, journey, at_castle, at, next,
        clockwise, turned, escort, visited, own_visited, earned, paid, seats, size;
} ObsLayout;

static void obs_layout(int n, ObsLayout *l) {
    int towns = n * kingdom_size(n), o = 0;
#define OBS_BLOCK(F, SIZE) l->F = o; o += (SIZE)
    OBS_BLOCK(phase, NPHASE); OBS_BLOCK(pending, NPENDING); OBS_BLOCK(pending_count, 1);
    OBS_BLOCK(passes, 1); OBS_BLOCK(round, 1); OBS_BLOCK(rounds, 1); OBS_BLOCK(dragon, n);
    OBS_BLOCK(current, n); OBS_BLOCK(deck, 1); OBS_BLOCK(discard, NK); OBS_BLOCK(set_aside, 1);
    OBS_BLOCK(rules, 3); OBS_BLOCK(town, towns); OBS_BLOCK(terrain, towns * 6);
    OBS_BLOCK(gold, towns * n); OBS_BLOCK(thief, towns * n); OBS_BLOCK(obstacle, towns * n);
    OBS_BLOCK(journey, 1); OBS_BLOCK(at_castle, 1); OBS_BLOCK(at, towns); OBS_BLOCK(next, towns);
    OBS_BLOCK(clockwise, 1); OBS_BLOCK(turned, 1); OBS_BLOCK(escort, n);
    OBS_BLOCK(visited, towns); OBS_BLOCK(own_visited, 1); OBS_BLOCK(earned, 1);
    OBS_BLOCK(paid, 1); OBS_BLOCK(seats, n * OBS_SEAT);
#undef OBS_BLOCK
    l->size = o;
}

static void observe(S *s, int player, float *v) {
    int n = s->n, slots = kingdom_size(n), over = s->phase == P_OVER;
    ObsLayout l;
    obs_layout(n, &l);
    memset(v, 0, sizeof(float) * l.size);
#define REL(p) (((p) - player + n) % n)
    v[l.phase + s->phase] = 1.0f;
    v[l.pending + s->pending] = 1.0f;
    v[l.pending_count] = (float)s->pending_count;
    v[l.passes] = (float)s->passes;
    v[l.round] = (float)s->round;
    v[l.rounds] = (float)rounds_by_n[n];
    v[l.dragon + REL(s->dragon)] = 1.0f;
    v[l.deck] = (float)sum(s->deck, NK);
    v[l.set_aside] = (float)sum(s->set_aside, n);
    if (!over) v[l.current + REL(s->current)] = 1.0f;
    for (int k = 0; k < NK; k++) v[l.discard + k] = (float)s->discard[k];
    v[l.rules] = (float)s->magic_spell;
    v[l.rules + 1] = (float)s->weak_gold;
    v[l.rules + 2] = (float)s->gold_for_all;
    for (int k = 0; k < n; k++) {
        int first = REL(k) * slots;
        for (int i = 0; i < s->nk[k]; i++) {
            const int *t = s->towns[k][i];
            int ref = first + i;
            v[l.town + ref] = 1.0f;
            v[l.terrain + ref * 6 + t[TERRAIN]] = 1.0f;
            if (t[GOLD] >= 0) v[l.gold + ref * n + REL(t[GOLD])] = 1.0f;
            if (t[THIEF] >= 0) v[l.thief + ref * n + REL(t[THIEF])] = 1.0f;
            if (t[OBSTACLE] >= 0) v[l.obstacle + ref * n + REL(t[OBSTACLE])] = 1.0f;
        }
    }
    if (s->phase == P_JOURNEY) {
        v[l.journey] = 1.0f;
        if (s->at_k == NO_ONE) v[l.at_castle] = 1.0f;
        else v[l.at + REL(s->at_k) * slots + s->at_i] = 1.0f;
        int k, i;
        if (next_town(s, &k, &i)) v[l.next + REL(k) * slots + i] = 1.0f;
        if (s->escort != NO_ONE) v[l.escort + REL(s->escort)] = 1.0f;
        for (k = 0; k < n; k++)
            for (i = 0; i < s->nk[k]; i++)
                if (s->visited >> (k * MAXK + i) & 1) v[l.visited + REL(k) * slots + i] = 1.0f;
        v[l.clockwise] = s->direction > 0 ? 1.0f : 0.0f;
        v[l.turned] = (float)s->turned;
        v[l.own_visited] = (float)s->own_visited;
        v[l.earned] = (float)s->earned;
        v[l.paid] = (float)s->paid;
    }
    for (int rel = 0; rel < n; rel++) {
        int p = (player + rel) % n;
        float *w = v + l.seats + rel * OBS_SEAT;
        w[0] = (float)sum(s->hands[p], NK);
        w[1] = (float)banners_left(s, p);
        w[2] = (float)s->bought[p];
        w[3] = (float)s->set_aside[p];
        if (p == player || over) w[4] = (float)s->gold[p];
        if (p == player)
            for (int k = 0; k < NK; k++) w[5 + k] = (float)s->hands[p][k];
    }
#undef REL
}

static Py_ssize_t obs_size(int n) {
    ObsLayout l;
    obs_layout(n, &l);
    return l.size;
}
