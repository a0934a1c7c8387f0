/* The compiled Elfengold engine: the rules' hot path (legal actions, apply, clone) over
 * plain C arrays.
 *
 * A translation of state.py, which stays the reference: every rule is decided there
 * first, and tests/elfengold/test_fast_differential.py plays both engines side by side
 * from the same seeds under every rule option and demands identical legal-action lists,
 * states, logs, views and saved games.  Nothing here is data: the board (Elfenland's,
 * handed over as Elfenland's engine gets it), the action space, the cost table, the
 * gold values and the card and item counts come once from fast.py (``configure``).
 *
 * As in the other engines, randomness goes through the state's own Python ``Rng``
 * (draw for draw as the pure engine draws), every attribute the pure engine keeps is a
 * descriptor reading the C arrays (a fresh list on every read), and nothing from outside
 * reaches the arrays unchecked (issue #22): every setter checks each number's range
 * before anything changes and raises the configured ElfenlandError otherwise.
 *
 * The log keeps one number per action (its facts: the card drawn, the sale, the cards
 * paid...); fast.py turns it into the pure engine's public and private facts.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <string.h>
#include <structmember.h>

#define MAXP 6
#define HK 8 /* hand kinds: seven travel cards and the witch */
#define NCK 9 /* card kinds: and the gold card */
#define NI 11 /* item kinds */
#define NCOUNTER 6
#define MAXR 64
#define MAXT 32
#define MAXADJ 12
#define LEGAL_MAX 16384
#define NONE (-1)
#define TERMINAL_PLAYER (-4)
#define RAFT 6
#define WITCH 7
#define GOLD_CARD 8
#define TREE 6
#define SEA_MONSTER 7
#define GOLD_PIECE 8
#define DOUBLE 9
#define EXCHANGE 10
#define MAX_ROW (2 * MAXP)
#define MSCODES 390625 /* 5**8: a multiset of up to 4 cards of 8 kinds, base 5 */
/* core/options.py's bounds. */
#define MAX_COUNT 1000
#define MAX_GOLD 1000000000L
#define MAX_LEDGER 1000000000000L
#define ENGINE_LIST_MAX MAXR
/* The common header's board part: Elfenland's map, which Elfengold plays on, and caravans
 * of the seven travel cards and the witch. */
#define ENGINE_BOARD
#define ENGINE_PAY_KINDS HK
#define ENGINE_MSCODES MSCODES

enum { K_DRAW, K_DRAW_BLIND, K_TAKE_GOLD, K_HIDE, K_BID, K_PASS, K_PLACE, K_DOUBLE,
       K_EXCHANGE, K_TREE, K_MONSTER, K_GOLD, K_MOVE, K_FLY, K_END, K_COLLECT, K_CARDS,
       K_DISCARD, K_KEEP };
enum { PAY_NORMAL, PAY_WITCH, PAY_CARAVAN };
enum { P_DRAW_CARDS, P_DRAW_ITEMS, P_AUCTION, P_PLACE, P_MOVE, P_SETTLE, P_MOVE_DRAW,
       P_DISCARD, P_KEEP, P_OVER, NPHASE };
/* An auction's outcome in a bid's or pass's fact. */
enum { SALE_NONE, SALE_RETURNED, SALE_SOLD, SALE_DEFAULT };

/* ------------------------------------------------------------------ tables */
static int MAX_BID;
static int fixed_gold[MAXT], gold_tokens[MAXT], ngold_tokens;
static int item_counts[NI], travel_per_kind, witch_cards, gold_cards, start_coins, income,
    deal_cards, display_size, coins_per_gold_card, witch_bypass_coins, flight_coins,
    towns_to_end, lake_rafts;
static signed char *a_kind, *a_item, *a_route, *a_dir, *a_item2, *a_route2, *a_secret,
    *a_pay, *a_cards;
static short *a_amount;
static int id_draw[HK], id_draw_blind, id_take_gold, id_hide[NI], id_bid1, id_pass, id_end,
    id_collect, id_cards, id_discard[HK], id_keep[2][NI];
static int id_place[MAXR][NCOUNTER], id_double[MAXR][NCOUNTER], id_tree[MAXR],
    id_gold[MAXR], id_monster[MAXR], id_move[MAXR][2][NCOUNTER + 1][2], id_caravan[MAXR][2],
    id_fly[MAXT];
static int *exch_id; /* by (ka, ra, kb, rb), ra < rb: the Exchange's id or -1 */
static PyObject *phase_members[NPHASE], *s_next, *s_settle;

/* ------------------------------------------------------------------ the state */
typedef struct {
    /* rules */
    int three_at_once, gold_stays, overbid_capped, defaulter_rebids, hand_limit,
        limit_after_draw, used_remove, flight_collects, exchange_same, tiebreak_cards,
        witch_in_caravan, caravan_if_needed, rounds, random_gold, witch, rule_town_cards;
    /* position */
    int n, round, phase, starting, current, step, passes;
    int gold_values[MAXT];
    int hands[MAXP][HK], supply[NCK], display[NCK], discard[NCK], gold_deck;
    int item_pile[NI], removed[NI];
    int items_up[MAXP][NI], items_down[MAXP][NI], kept_up[MAXP][NI], kept_down[MAXP][NI];
    int ndrawn, drawn[2], nrow, row[MAX_ROW];
    long high_bid;
    int high_bidder, passed, excluded;
    int ncnt[MAXR], cnt[MAXR][2], dbl[MAXR], obstacle[MAXR], gold_piece[MAXR];
    long coins[MAXP], paid_out, paid_in;
    int boots[MAXP], town_cards[MAXP];
    long visited[MAXP];
    int moved, draws_left, after_settle;
    long earned;
    int has_result, nresult, result[MAXP];
    int rng_shared;
    int drew; /* the last action (or the set-up) drew at random: the take-back rule */
    Py_ssize_t length;
} S;

typedef struct {
    PyObject_HEAD
    S st;
    int legal_valid, nlegal;
    int *legal; /* LEGAL_MAX ids, allocated on first use */
    PyObject *rules, *board, *seed, *origin, *rng, *chain, *origin_snapshot;
} Core;

static PyTypeObject CoreType;

/* The code every compiled engine shares (randomness, checked input, the common methods,
 * configure): one copy for all of them. */
#include "../../core/_engine_common.h"

static int check_ready(Core *c) {
    if (check_set_up(c) < 0) return -1;
    S *s = &c->st;
    if (s->phase != P_OVER && (s->current < 0 || s->current >= s->n ||
                               s->starting < 0 || s->starting >= s->n)) {
        PyErr_Format(err_type(), "the player to move (%d) is not one of the %d seats",
                     s->current, s->n);
        return -1;
    }
    if (s->high_bidder >= s->n) {
        PyErr_SetString(err_type(), "the high bidder is not one of the seats");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ coins and cards */
static void pay_out(S *s, int p, long amount) { s->coins[p] += amount; s->paid_out += amount; }
static void pay_in(S *s, int p, long amount) { s->coins[p] -= amount; s->paid_in += amount; }

static int any(const int *v, int len) {
    for (int i = 0; i < len; i++) if (v[i]) return 1;
    return 0;
}

/* The top card of the supply, the discard pile shuffled in first when it is empty;
 * -2 when both are empty, -1 with an error. */
static int draw_supply(Core *c) {
    S *s = &c->st;
    if (!any(s->supply, NCK)) {
        if (!any(s->discard, NCK)) return -2;
        memcpy(s->supply, s->discard, sizeof s->supply);
        memset(s->discard, 0, sizeof s->discard);
    }
    s->drew = 1;
    return draw_counts(c, s->supply, NCK);
}

static int refill_display(Core *c) {
    S *s = &c->st;
    while (sum(s->display, NCK) < display_size) {
        int card = draw_supply(c);
        if (card == -2) return 0;
        if (card < 0) return -1;
        if (card == GOLD_CARD && !s->gold_stays) s->gold_deck++;
        else s->display[card]++;
    }
    return 0;
}

static int gold_available(S *s) { return s->gold_deck + s->display[GOLD_CARD]; }

static int can_draw(S *s) {
    return any(s->display, HK) || any(s->supply, NCK) || any(s->discard, NCK) ||
        gold_available(s) > 0;
}

/* ------------------------------------------------------------------ flow */
static int begin_items(Core *c);
static int next_mover(Core *c);

static int card_player(S *s, int step) {
    if (!s->three_at_once) return (s->starting + step % s->n) % s->n;
    return (s->starting + step / 3) % s->n;
}

static int next_card_turn(Core *c) {
    S *s = &c->st;
    while (s->step < 3 * s->n && !can_draw(s)) s->step++;
    if (s->step >= 3 * s->n) {
        for (int p = 0; p < s->n; p++) pay_out(s, p, income);
        return begin_items(c);
    }
    s->current = card_player(s, s->step);
    return 0;
}

static int start_round(Core *c) {
    S *s = &c->st;
    if (s->round == 1) return begin_items(c);
    s->phase = P_DRAW_CARDS;
    s->step = 0;
    return next_card_turn(c);
}

static int active(S *s, int q) { return !(((s->passed | s->excluded) >> q) & 1); }

static int next_bidder(S *s, int after) {
    for (int i = 1; i <= s->n; i++) {
        int q = ((after + i) % s->n + s->n) % s->n;
        if (active(s, q) && q != s->high_bidder) return q;
    }
    return NONE;
}

static int row_pop(S *s) {
    int item = s->row[0];
    memmove(s->row, s->row + 1, sizeof(int) * (size_t)(s->nrow - 1));
    s->nrow--;
    return item;
}

static void begin_place(S *s) {
    s->phase = P_PLACE;
    s->passes = 0;
    s->current = s->starting;
}

static void open_item(S *s, int fresh) {
    while (s->nrow) {
        if (fresh) s->excluded = 0;
        s->high_bid = 0;
        s->high_bidder = NONE;
        s->passed = 0;
        int first = next_bidder(s, s->starting - 1);
        if (first != NONE) {
            s->current = first;
            return;
        }
        s->item_pile[row_pop(s)]++;
        fresh = 1;
    }
    begin_place(s);
}

static int begin_auction(Core *c) {
    S *s = &c->st;
    s->drew = 1; /* as the pure engine's _random(), even when the pile is empty */
    s->phase = P_AUCTION;
    int want = sum(s->item_pile, NI);
    if (want > 2 * s->n) want = 2 * s->n;
    s->nrow = 0;
    for (int i = 0; i < want; i++) {
        int k = draw_counts(c, s->item_pile, NI);
        if (k < 0) return -1;
        s->row[s->nrow++] = k;
    }
    open_item(s, 1);
    return 0;
}

static int next_item_turn(Core *c) {
    S *s = &c->st;
    s->drew = 1; /* as the pure engine's _random(), even when no seat is left to draw */
    while (s->step < s->n) {
        int p = (s->starting + s->step) % s->n;
        int want = sum(s->item_pile, NI);
        if (want > 2) want = 2;
        s->ndrawn = 0;
        for (int i = 0; i < want; i++) {
            int k = draw_counts(c, s->item_pile, NI);
            if (k < 0) return -1;
            s->drawn[s->ndrawn++] = k;
        }
        if (s->ndrawn == 2) {
            s->current = p;
            return 0;
        }
        for (int i = 0; i < s->ndrawn; i++) s->items_down[p][s->drawn[i]]++;
        s->ndrawn = 0;
        s->step++;
    }
    return begin_auction(c);
}

static int begin_items(Core *c) {
    S *s = &c->st;
    s->phase = P_DRAW_ITEMS;
    s->step = 0;
    return next_item_turn(c);
}

/* The outcome of the sale when nobody is left to bid; returns the fact (-1 with an
 * error when nothing is on sale, a position set up so: the pure engine's IndexError). */
static long auction_next(S *s) {
    int nxt = next_bidder(s, s->current);
    if (nxt != NONE) {
        s->current = nxt;
        return 0;
    }
    if (!s->nrow) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return -1;
    }
    int item = s->row[0], w = s->high_bidder;
    if (w == NONE) {
        s->item_pile[row_pop(s)]++;
        open_item(s, 1);
        return SALE_RETURNED | item << 2;
    }
    long price = s->high_bid;
    if (s->coins[w] >= price) {
        pay_in(s, w, price);
        s->items_up[w][item]++;
        row_pop(s);
        open_item(s, 1);
        return SALE_SOLD | item << 2 | w << 6 | price << 9;
    }
    long held = s->coins[w];
    pay_in(s, w, held);
    if (!s->defaulter_rebids || held == 0) s->excluded |= 1 << w;
    open_item(s, 0);
    return SALE_DEFAULT | item << 2 | w << 6 | held << 9;
}

static void begin_moves(S *s) {
    s->phase = P_MOVE;
    s->step = 0;
    s->passes = 0;
    s->current = s->starting;
    s->moved = 0;
    s->earned = 0;
}

static int begin_move_draws(Core *c);

static int settle(Core *c) {
    S *s = &c->st;
    if (s->moved) {
        s->phase = P_SETTLE;
        return 0;
    }
    return begin_move_draws(c);
}

static int end_of_steps(Core *c) {
    S *s = &c->st;
    int p = s->current;
    if (s->hand_limit && !s->limit_after_draw && sum(s->hands[p], HK) > s->hand_limit) {
        s->phase = P_DISCARD;
        s->after_settle = 1;
        return 0;
    }
    return settle(c);
}

static int after_draws(Core *c) {
    S *s = &c->st;
    int p = s->current;
    s->draws_left = 0;
    if (s->hand_limit && s->limit_after_draw && sum(s->hands[p], HK) > s->hand_limit) {
        s->phase = P_DISCARD;
        s->after_settle = 0;
        return 0;
    }
    return next_mover(c);
}

static int begin_move_draws(Core *c) {
    S *s = &c->st;
    s->phase = P_MOVE_DRAW;
    s->draws_left = 2;
    if (!can_draw(s)) return after_draws(c);
    return 0;
}

static int markers(S *s, int p) { return __builtin_popcountl(s->visited[p]); }

static int distance_to_card(S *s, int p) {
    if (s->town_cards[p] == NONE) return 0;
    return dist[s->boots[p]][s->town_cards[p]];
}

static int score(S *s, int p) {
    if (!s->rule_town_cards) return markers(s, p);
    return markers(s, p) - distance_to_card(s, p);
}

static void finish(S *s) {
    long key[MAXP][4];
    int best = 0;
    s->phase = P_OVER;
    s->current = TERMINAL_PLAYER;
    for (int p = 0; p < s->n; p++) {
        key[p][0] = score(s, p);
        key[p][1] = s->rule_town_cards ? -distance_to_card(s, p) : 0;
        key[p][2] = s->coins[p];
        key[p][3] = s->tiebreak_cards ? sum(s->hands[p], HK) : 0;
        for (int i = 0; i < 4 && p; i++) {
            if (key[p][i] > key[best][i]) { best = p; break; }
            if (key[p][i] < key[best][i]) break;
        }
    }
    s->nresult = 0;
    for (int p = 0; p < s->n; p++)
        if (!memcmp(key[p], key[best], sizeof key[p])) s->result[s->nresult++] = p;
    s->has_result = 1;
}

static int next_keeper(Core *c) {
    S *s = &c->st;
    while (s->step < s->n) {
        int p = (s->starting + s->step) % s->n;
        if (sum(s->items_up[p], NI) + sum(s->items_down[p], NI) + sum(s->kept_up[p], NI) +
                sum(s->kept_down[p], NI) > 2) {
            s->current = p;
            return 0;
        }
        s->step++;
    }
    s->round++;
    s->starting = (s->starting + 1) % s->n;
    return start_round(c);
}

static int end_moves(Core *c) {
    S *s = &c->st;
    for (int r = 0; r < NR; r++) {
        for (int i = 0; i < s->ncnt[r]; i++) s->item_pile[s->cnt[r][i]]++;
        s->ncnt[r] = 0;
        if (s->dbl[r]) { s->item_pile[DOUBLE]++; s->dbl[r] = 0; }
        if (s->gold_piece[r]) { s->item_pile[GOLD_PIECE]++; s->gold_piece[r] = 0; }
        if (s->obstacle[r] != NONE) {
            (s->used_remove ? s->removed : s->item_pile)[s->obstacle[r]]++;
            s->obstacle[r] = NONE;
        }
    }
    int complete = 0;
    for (int p = 0; p < s->n; p++) complete |= markers(s, p) >= towns_to_end;
    if (s->round >= s->rounds || complete) {
        finish(s);
        return 0;
    }
    s->phase = P_KEEP;
    s->step = 0;
    return next_keeper(c);
}

static int next_mover(Core *c) {
    S *s = &c->st;
    s->step++;
    s->moved = 0;
    s->earned = 0;
    if (s->step >= s->n) return end_moves(c);
    s->phase = P_MOVE;
    s->current = (s->starting + s->step) % s->n;
    return 0;
}

/* Cards of ``kind`` one step costs before obstacles, or -1 if impossible. */
static int step_base(S *s, int r, int dir, int kind) {
    if (r_road[r]) {
        int on = 0;
        for (int i = 0; i < s->ncnt[r]; i++) on |= s->cnt[r][i] == kind;
        return on ? cost_tab[kind][r_terrain[r]] : -1;
    }
    if (kind != RAFT) return -1;
    if (r_terrain[r] == TERRAIN_RIVER) return river_rafts(r, dir);
    return lake_rafts;
}

/* The counter kinds on road ``r``, sorted and distinct, into ``kinds``; their number. */
static int kinds_on(S *s, int r, int *kinds) {
    int mask = 0, n = 0;
    for (int i = 0; i < s->ncnt[r]; i++) mask |= 1 << s->cnt[r][i];
    for (int k = 0; k < NCOUNTER; k++) if (mask >> k & 1) kinds[n++] = k;
    return n;
}

/* ------------------------------------------------------------------ legal actions */
#define PUSH(ID) do {                                   \
        int id_ = (ID);                                 \
        if (n >= LEGAL_MAX) goto full;                  \
        if (id_ < 0) goto outside;                      \
        out[n++] = id_;                                 \
    } while (0)

static int generate(Core *c) {
    S *s = &c->st;
    if (check_ready(c) < 0) return -1;
    if (!c->legal) {
        c->legal = PyMem_Malloc(sizeof(int) * LEGAL_MAX);
        if (!c->legal) { PyErr_NoMemory(); return -1; }
    }
    int *out = c->legal, n = 0, p = s->current;
    switch (s->phase) {
    case P_DRAW_CARDS:
    case P_MOVE_DRAW:
        for (int k = 0; k < HK; k++) if (s->display[k]) PUSH(id_draw[k]);
        if (any(s->supply, NCK) || any(s->discard, NCK)) PUSH(id_draw_blind);
        if (gold_available(s)) PUSH(id_take_gold);
        break;
    case P_DRAW_ITEMS: {
        int mask = 0;
        for (int i = 0; i < s->ndrawn; i++) mask |= 1 << s->drawn[i];
        for (int k = 0; k < NI; k++) if (mask >> k & 1) PUSH(id_hide[k]);
        break;
    }
    case P_AUCTION: {
        long top = MAX_BID;
        if (s->overbid_capped && s->coins[p] < top) top = s->coins[p];
        PUSH(id_pass);
        for (long b = s->high_bid + 1; b <= top; b++) PUSH(id_bid1 + (int)(b - 1));
        break;
    }
    case P_PLACE: {
        int have[NI];
        for (int k = 0; k < NI; k++) have[k] = s->items_up[p][k] + s->items_down[p][k];
        PUSH(id_pass);
        for (int i = 0; i < NROADS; i++) {
            int r = roads[i], on = s->ncnt[r];
            for (int k = 0; k < NCOUNTER; k++) {
                if (!have[k]) continue;
                int id = !on ? id_place[r][k] : on == 1 && have[DOUBLE] ? id_double[r][k] : -1;
                if (id >= 0) PUSH(id);
            }
            if (on && s->obstacle[r] == NONE && !s->gold_piece[r]) {
                if (have[TREE]) PUSH(id_tree[r]);
                if (have[GOLD_PIECE]) PUSH(id_gold[r]);
            }
        }
        if (have[SEA_MONSTER])
            for (int r = 0; r < NR; r++)
                if (!r_road[r] && s->obstacle[r] == NONE) PUSH(id_monster[r]);
        if (have[EXCHANGE]) {
            int with[MAXR], nw = 0;
            for (int i = 0; i < NROADS; i++) if (s->ncnt[roads[i]]) with[nw++] = roads[i];
            for (int i = 0; i < nw; i++)
                for (int j = i + 1; j < nw; j++) {
                    int ka[NCOUNTER], kb[NCOUNTER];
                    int na = kinds_on(s, with[i], ka), nb = kinds_on(s, with[j], kb);
                    for (int x = 0; x < na; x++)
                        for (int y = 0; y < nb; y++) {
                            if (ka[x] == kb[y] && !s->exchange_same) continue;
                            int id = exch_id[((ka[x] * MAXR + with[i]) * NCOUNTER + kb[y]) *
                                             MAXR + with[j]];
                            if (id >= 0) PUSH(id);
                        }
                }
        }
        break;
    }
    case P_MOVE: {
        const int *hand = s->hands[p];
        int here = s->boots[p];
        int witch = s->witch && hand[WITCH] > 0 && s->coins[p] >= witch_bypass_coins;
        for (int i = 0; i < adj_n[here]; i++) {
            int r = adj_r[here][i];
            int d = r_a[r] == here ? 0 : 1;
            int kinds[NCOUNTER], nk;
            if (r_road[r]) nk = kinds_on(s, r, kinds);
            else { kinds[0] = RAFT; nk = 1; }
            int blocked = s->obstacle[r] != NONE, payable = 0;
            for (int j = 0; j < nk; j++) {
                int k = kinds[j], base = step_base(s, r, d, k);
                if (base < 0) continue;
                if (hand[k] >= base + blocked) {
                    PUSH(id_move[r][d][k][PAY_NORMAL]);
                    payable = 1;
                }
                if (witch && blocked && hand[k] >= base) PUSH(id_move[r][d][k][PAY_WITCH]);
            }
            if (!r_road[r] || !nk) continue;
            if (payable && s->caravan_if_needed) continue;
            int usable[HK];
            memcpy(usable, hand, sizeof usable);
            if (!s->witch_in_caravan) usable[WITCH] = 0;
            if (n + 400 > LEGAL_MAX) goto full;
            if (paid_steps(out, &n, id_caravan[r][d], usable, 3 + blocked) < 0) return -1;
        }
        if (s->witch && hand[WITCH] && s->coins[p] >= flight_coins)
            for (int t = 0; t < NT; t++) if (t != here) PUSH(id_fly[t]);
        PUSH(id_end);
        break;
    }
    case P_SETTLE:
        PUSH(id_collect);
        PUSH(id_cards);
        break;
    case P_DISCARD:
        for (int k = 0; k < HK; k++) if (s->hands[p][k]) PUSH(id_discard[k]);
        break;
    case P_KEEP:
        for (int k = 0; k < NI; k++) if (s->items_up[p][k]) PUSH(id_keep[0][k]);
        for (int k = 0; k < NI; k++) if (s->items_down[p][k]) PUSH(id_keep[1][k]);
        break;
    default:
        break;
    }
    c->nlegal = n;
    c->legal_valid = 1;
    return 0;
full:
    PyErr_SetString(err_type(), "more legal actions than the compiled engine holds");
    return -1;
outside:
    PyErr_SetString(PyExc_KeyError, "an action outside the action space");
    return -1;
}

static int ensure_legal(Core *c) {
    if (c->legal_valid) return 0;
    return generate(c);
}

/* ------------------------------------------------------------------ effects */
/* Take an item from the play area, a face-up one first; 1 if it was face down. */
static int use_item(S *s, int p, int item) {
    if (s->items_up[p][item]) {
        s->items_up[p][item]--;
        return 0;
    }
    s->items_down[p][item]--;
    return 1;
}

static void sort_route(S *s, int r) {
    if (s->ncnt[r] == 2 && s->cnt[r][0] > s->cnt[r][1]) {
        int t = s->cnt[r][0];
        s->cnt[r][0] = s->cnt[r][1];
        s->cnt[r][1] = t;
    }
}

/* Road ``r`` without one counter of ``kind`` and with one of ``other`` instead. */
static void swap_counter(S *s, int r, int kind, int other) {
    for (int i = 0; i < s->ncnt[r]; i++)
        if (s->cnt[r][i] == kind) {
            s->cnt[r][i] = other;
            break;
        }
    sort_route(s, r);
}

/* One draw (phases 1 and 6); the fact is the card; *counts is 0 when a gold card drawn
 * from the supply went to the gold deck (the player draws again). */
static long do_draw(Core *c, int p, int id, int *counts) {
    S *s = &c->st;
    int k = a_kind[id];
    *counts = 1;
    if (k == K_TAKE_GOLD) {
        int n = gold_available(s), from_display = s->display[GOLD_CARD];
        pay_out(s, p, (long)coins_per_gold_card * n);
        s->discard[GOLD_CARD] += n;
        s->gold_deck = 0;
        s->display[GOLD_CARD] = 0;
        if (from_display && refill_display(c) < 0) return -1;
        return n;
    }
    if (k == K_DRAW) {
        s->display[a_item[id]]--;
        s->hands[p][a_item[id]]++;
        if (refill_display(c) < 0) return -1;
        return 0;
    }
    int card = draw_supply(c);
    if (card < 0) {
        if (card == -2) PyErr_SetString(PyExc_AssertionError, "a blind draw from nothing");
        return -1;
    }
    if (card == GOLD_CARD) {
        s->gold_deck++;
        *counts = 0;
    } else {
        s->hands[p][card]++;
    }
    return card;
}

/* Play a legal action; returns the fact the log keeps for it, or -1 with an error. */
static long do_action(Core *c, int id) {
    S *s = &c->st;
    int p = s->current, k = a_kind[id], item = a_item[id], r = a_route[id];
    long fact = 0;
    int counts;
    switch (s->phase) {
    case P_DRAW_CARDS:
        fact = do_draw(c, p, id, &counts);
        if (fact < 0) return -1;
        if (counts) s->step++;
        if (next_card_turn(c) < 0) return -1;
        return fact;
    case P_MOVE_DRAW:
        fact = do_draw(c, p, id, &counts);
        if (fact < 0) return -1;
        if (counts) s->draws_left--;
        if ((s->draws_left == 0 || !can_draw(s)) && after_draws(c) < 0) return -1;
        return fact;
    case P_PLACE:
        if (k == K_PASS) {
            s->passes++;
        } else {
            s->passes = 0;
            switch (k) {
            case K_PLACE:
            case K_DOUBLE: {
                int bit = 0;
                if (k == K_DOUBLE) {
                    fact |= use_item(s, p, DOUBLE) << bit++;
                    s->dbl[r] = 1;
                }
                fact |= use_item(s, p, item) << bit;
                if (s->ncnt[r] < 2) s->cnt[r][s->ncnt[r]++] = item;
                sort_route(s, r);
                break;
            }
            case K_TREE:
            case K_MONSTER: {
                int obstacle = k == K_TREE ? TREE : SEA_MONSTER;
                fact = use_item(s, p, obstacle);
                s->obstacle[r] = obstacle;
                break;
            }
            case K_GOLD:
                fact = use_item(s, p, GOLD_PIECE);
                s->gold_piece[r] = 1;
                break;
            default: /* the Exchange: swap, then the spell goes back into the pile */
                fact = use_item(s, p, EXCHANGE);
                s->item_pile[EXCHANGE]++;
                swap_counter(s, r, item, a_item2[id]);
                swap_counter(s, a_route2[id], a_item2[id], item);
                break;
            }
        }
        if (s->passes >= s->n) begin_moves(s);
        else s->current = (s->current + 1) % s->n;
        return fact;
    default:
        break;
    }
    switch (k) {
    case K_HIDE: { /* the other drawn item lies face up; the fact is it, plus one */
        int other = -1, found = 0;
        for (int i = 0; i < s->ndrawn; i++) {
            if (!found && s->drawn[i] == item) found = 1;
            else other = s->drawn[i];
        }
        s->items_down[p][item]++;
        if (other >= 0) s->items_up[p][other]++;
        s->ndrawn = 0;
        s->step++;
        if (next_item_turn(c) < 0) return -1;
        return other + 1;
    }
    case K_BID:
        s->high_bid = a_amount[id];
        s->high_bidder = p;
        return auction_next(s);
    case K_PASS:
        s->passed |= 1 << p;
        return auction_next(s);
    case K_MOVE: {
        int *hand = s->hands[p], d = a_dir[id], pay = a_pay[id];
        int paid[HK] = {0};
        if (pay == PAY_CARAVAN) {
            for (int i = 0; i < HK; i++) paid[i] = a_cards[(Py_ssize_t)id * HK + i];
        } else {
            int base = step_base(s, r, d, item);
            if (base < 0) {
                PyErr_SetString(PyExc_AssertionError, "a legal step has a cost");
                return -1;
            }
            if (pay == PAY_WITCH) {
                paid[item] = base;
                paid[WITCH] = 1;
                pay_in(s, p, witch_bypass_coins);
            } else {
                paid[item] = base + (s->obstacle[r] != NONE);
            }
            fact = paid[item];
        }
        for (int i = 0; i < HK; i++) {
            hand[i] -= paid[i];
            s->discard[i] += paid[i];
        }
        int to = d == 0 ? r_b[r] : r_a[r];
        s->boots[p] = to;
        long gold = (long)s->gold_values[to] * (s->gold_piece[r] ? 2 : 1);
        s->earned += gold;
        if (to != CAPITAL) s->visited[p] |= 1L << to;
        s->moved = 1;
        return fact | gold << 8;
    }
    case K_FLY: {
        int to = a_amount[id];
        s->hands[p][WITCH]--;
        s->discard[WITCH]++;
        pay_in(s, p, flight_coins);
        s->boots[p] = to;
        if (s->flight_collects && to != CAPITAL) s->visited[p] |= 1L << to;
        s->moved = 1;
        return 0;
    }
    case K_END:
        return end_of_steps(c) < 0 ? -1 : 0;
    case K_COLLECT:
        fact = s->earned;
        pay_out(s, p, s->earned);
        return after_draws(c) < 0 ? -1 : fact;
    case K_CARDS:
        return begin_move_draws(c) < 0 ? -1 : 0;
    case K_DISCARD:
        s->hands[p][item]--;
        s->discard[item]++;
        if (sum(s->hands[p], HK) <= s->hand_limit) {
            if ((s->after_settle ? settle(c) : next_mover(c)) < 0) return -1;
        }
        return 0;
    case K_KEEP: {
        if (a_secret[id]) { s->items_down[p][item]--; s->kept_down[p][item]++; }
        else { s->items_up[p][item]--; s->kept_up[p][item]++; }
        if (sum(s->kept_up[p], NI) + sum(s->kept_down[p], NI) >= 2) {
            for (int i = 0; i < NI; i++) {
                s->item_pile[i] += s->items_up[p][i] + s->items_down[p][i];
                s->items_up[p][i] = s->kept_up[p][i];
                s->items_down[p][i] = s->kept_down[p][i];
                s->kept_up[p][i] = s->kept_down[p][i] = 0;
            }
            s->step++;
            if (next_keeper(c) < 0) return -1;
        }
        return 0;
    }
    }
    PyErr_SetString(PyExc_AssertionError, "an action of no phase");
    return -1;
}

/* Play legal action ``id`` (already checked) and append its link (chain, player,
 * action, fact) to the history. */
static int play(Core *c, Py_ssize_t id, PyObject *action) {
    int player = c->st.current;
    c->legal_valid = 0;
    c->st.drew = 0;
    long fact = do_action(c, (int)id);
    if (fact < 0) return -1;
    PyObject *pl = PyLong_FromLong(player), *fa = PyLong_FromLong(fact);
    PyObject *link = pl && fa
        ? PyTuple_Pack(4, c->chain ? c->chain : Py_None, pl, action, fa) : NULL;
    Py_XDECREF(pl);
    Py_XDECREF(fa);
    if (!link) return -1;
    /* A link holds ints, an action and older links: never a cycle. */
    PyObject_GC_UnTrack(link);
    Py_XSETREF(c->chain, link);
    c->st.length++;
    return 0;
}

/* A list of ints shuffled by the state's Rng (Rng.shuffle), read back into ``v``. */
static int shuffle_ints(Core *c, int *v, int len) {
    PyObject *pool = int_list(v, len);
    if (!pool) return -1;
    PyObject *ok = PyObject_CallMethodOneArg(c->rng, s_shuffle, pool);
    if (!ok) { Py_DECREF(pool); return -1; }
    Py_DECREF(ok);
    for (int i = 0; i < len; i++) v[i] = (int)PyLong_AsLong(PyList_GET_ITEM(pool, i));
    Py_DECREF(pool);
    return PyErr_Occurred() ? -1 : 0;
}

/* A new game with ``n`` players (ElfengoldState._init_empty then _setup); the rules,
 * board, seed and a fresh Rng are set first. */
static PyObject *Core_start(Core *c, PyObject *arg) {
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 2 || n > MAXP) { PyErr_SetString(err_type(), "2 to 6 players"); return NULL; }
    if (!c->rng || !c->rules) {
        PyErr_SetString(err_type(), "no rng: set rules and rng first");
        return NULL;
    }
    c->legal_valid = 0;
    S *s = &c->st, rules = c->st;
    memset(s, 0, sizeof *s);
    memcpy(s, &rules, offsetof(S, n));
    s->n = (int)n;
    s->round = 1;
    s->phase = P_DRAW_ITEMS;
    memcpy(s->gold_values, fixed_gold, sizeof s->gold_values);
    memcpy(s->item_pile, item_counts, sizeof s->item_pile);
    s->high_bidder = NONE;
    for (int r = 0; r < MAXR; r++) s->obstacle[r] = NONE;
    for (int p = 0; p < MAXP; p++) {
        s->boots[p] = CAPITAL;
        s->town_cards[p] = NONE;
    }
    Py_CLEAR(c->chain);
    Py_CLEAR(c->origin);
    Py_CLEAR(c->origin_snapshot);
    if (s->random_gold) {
        int tokens[MAXT];
        memcpy(tokens, gold_tokens, sizeof tokens);
        if (shuffle_ints(c, tokens, ngold_tokens) < 0) return NULL;
        for (int t = 0, i = 0; t < NT; t++) if (t != CAPITAL) s->gold_values[t] = tokens[i++];
    }
    if (s->rule_town_cards) {
        int pool[MAXT];
        memcpy(pool, tc_list, sizeof pool);
        if (shuffle_ints(c, pool, NTC) < 0) return NULL;
        for (int p = 0; p < n && p < NTC; p++) s->town_cards[p] = pool[p];
    }
    for (int k = 0; k < 7; k++) s->supply[k] = travel_per_kind;
    s->supply[WITCH] = s->witch ? witch_cards : 0;
    for (int p = 0; p < n; p++)
        for (int j = 0; j < deal_cards; j++) {
            int k = draw_counts(c, s->supply, NCK);
            if (k < 0) return NULL;
            s->hands[p][k]++;
        }
    if (refill_display(c) < 0) return NULL;
    s->supply[GOLD_CARD] += gold_cards;
    for (int p = 0; p < n; p++) pay_out(s, p, start_coins);
    if (start_round(c) < 0) return NULL;
    Py_RETURN_NONE;
}

/* position.resample, draw for draw: the other hands and the supply, the other players'
 * face-down items (and the items another player has drawn and not yet laid down), the
 * item pile and the other players' town cards dealt again from what ``player`` has not
 * seen, with ``rng``.  The origin (the position at the resample) is kept as a snapshot
 * and written out only if someone asks for it. */
static PyObject *Core_resample(Core *c, PyObject *args) {
    int player;
    PyObject *rng;
    Core *d = resample_begin(c, args, &player, &rng);
    if (!d) return NULL;
    S *s = &c->st;
    S *t = &d->st;
    int cards[NCK], items[NI];
    memcpy(cards, s->supply, sizeof cards);
    memcpy(items, s->item_pile, sizeof items);
    for (int p = 0; p < s->n; p++) {
        if (p == player) continue;
        for (int k = 0; k < HK; k++) cards[k] += s->hands[p][k];
        for (int k = 0; k < NI; k++) items[k] += s->items_down[p][k] + s->kept_down[p][k];
    }
    int drawn_by_other = s->phase == P_DRAW_ITEMS && s->current != player;
    if (drawn_by_other)
        for (int i = 0; i < s->ndrawn; i++) items[s->drawn[i]]++;
    for (int p = 0; p < s->n; p++) {
        if (p == player) continue;
        /* never a gold card: no hand holds one */
        if (redeal_counts(rng, t->hands[p], s->hands[p], cards, HK) < 0 ||
            redeal_counts(rng, t->items_down[p], s->items_down[p], items, NI) < 0 ||
            redeal_counts(rng, t->kept_down[p], s->kept_down[p], items, NI) < 0)
            goto fail;
    }
    if (drawn_by_other) {
        int fresh[2];
        for (int i = 0; i < s->ndrawn; i++) {
            fresh[i] = draw_counts_with(rng, items, NI);
            if (fresh[i] < 0) goto fail;
        }
        if (s->ndrawn == 2 && fresh[0] > fresh[1]) {
            int x = fresh[0];
            fresh[0] = fresh[1];
            fresh[1] = x;
        }
        memcpy(t->drawn, fresh, sizeof(int) * (size_t)s->ndrawn);
    }
    memcpy(t->supply, cards, sizeof cards);
    memcpy(t->item_pile, items, sizeof items);
    if (s->rule_town_cards && s->phase != P_OVER && redeal_town_cards(s, t, player, rng) < 0)
        goto fail;
    return resample_finish(d, rng);
fail:
    Py_DECREF(d);
    return NULL;
}

/* ------------------------------------------------------------------ attributes */
enum { F_GOLD_VALUES, F_HANDS, F_SUPPLY, F_DISPLAY, F_DISCARD, F_ITEM_PILE, F_REMOVED,
       F_ITEMS_UP, F_ITEMS_DOWN, F_KEPT_UP, F_KEPT_DOWN, F_DRAWN, F_ROW, F_COUNTERS,
       F_DOUBLE, F_OBSTACLE, F_GOLD_PIECE, F_COINS, F_BOOTS, F_VISITED, F_TOWN_CARDS,
       F_RESULT, F_N, F_ROUND, F_PHASE, F_STARTING, F_CURRENT, F_STEP, F_PASSES, F_GOLD_DECK,
       F_HIGH_BID, F_HIGH_BIDDER, F_PASSED, F_EXCLUDED, F_PAID_OUT, F_PAID_IN, F_MOVED,
       F_EARNED, F_DRAWS_LEFT, F_AFTER_DISCARD, F_LENGTH, F_RNG_SHARED, F_DREW };

/* The attributes (see FieldSpec): kind, place, length and bounds of each. */
static const FieldSpec fields[] = {
    [F_GOLD_VALUES] = FLD(FK_INTS, gold_values, gold_values, FV_NT, 0, 0, MAX_COUNT),
    [F_HANDS] = FLD(FK_MATRIX, hands, hands, FV_N, HK, 0, MAX_COUNT),
    [F_SUPPLY] = FLD(FK_INTS, supply, supply, NCK, 0, 0, MAX_COUNT),
    [F_DISPLAY] = FLD(FK_INTS, display, display, NCK, 0, 0, MAX_COUNT),
    [F_DISCARD] = FLD(FK_INTS, discard, discard, NCK, 0, 0, MAX_COUNT),
    [F_ITEM_PILE] = FLD(FK_INTS, item_pile, item_pile, NI, 0, 0, MAX_COUNT),
    [F_REMOVED] = FLD(FK_INTS, removed, removed, NI, 0, 0, MAX_COUNT),
    [F_ITEMS_UP] = FLD(FK_MATRIX, items_up, items_up, FV_N, NI, 0, MAX_COUNT),
    [F_ITEMS_DOWN] = FLD(FK_MATRIX, items_down, items_down, FV_N, NI, 0, MAX_COUNT),
    [F_KEPT_UP] = FLD(FK_MATRIX, kept_up, kept_up, FV_N, NI, 0, MAX_COUNT),
    [F_KEPT_DOWN] = FLD(FK_MATRIX, kept_down, kept_down, FV_N, NI, 0, MAX_COUNT),
    [F_DRAWN] = OWN_FIELD("drawn"),
    [F_ROW] = OWN_FIELD("row"),
    [F_COUNTERS] = OWN_FIELD("counters"),
    [F_DOUBLE] = FLD(FK_BOOLS, double, dbl, FV_NR, 0, 0, 1),
    [F_OBSTACLE] = FLD(FK_INTS, obstacle, obstacle, FV_NR, 0, NONE, NI - 1),
    [F_GOLD_PIECE] = FLD(FK_BOOLS, gold_piece, gold_piece, FV_NR, 0, 0, 1),
    [F_COINS] = FLD(FK_LONGS, coins, coins, FV_N, 0, 0, MAX_GOLD),
    [F_BOOTS] = FLD(FK_INTS, boots, boots, FV_N, 0, 0, FV_LAST_TOWN),
    [F_VISITED] = FLD(FK_LONGS, visited, visited, FV_N, 0, 0, FV_TOWNS),
    [F_TOWN_CARDS] = FLD(FK_INTS, town_cards, town_cards, FV_N, 0, NONE, FV_LAST_TOWN),
    [F_RESULT] = OWN_FIELD("result"),
    [F_N] = OWN_FIELD("n"),
    [F_ROUND] = SCALAR(FK_INT, round, 0, MAX_COUNT),
    [F_PHASE] = OWN_FIELD("phase"),
    [F_STARTING] = SCALAR(FK_INT, starting, 0, FV_LAST),
    [F_CURRENT] = OWN_FIELD("current"),
    [F_STEP] = SCALAR(FK_INT, step, 0, MAX_COUNT),
    [F_PASSES] = SCALAR(FK_INT, passes, 0, MAX_COUNT),
    [F_GOLD_DECK] = SCALAR(FK_INT, gold_deck, 0, MAX_COUNT),
    [F_HIGH_BID] = SCALAR(FK_LONG, high_bid, 0, MAX_GOLD),
    [F_HIGH_BIDDER] = SCALAR(FK_INT, high_bidder, NONE, FV_LAST),
    [F_PASSED] = SCALAR(FK_INT, passed, 0, FV_SEATS),
    [F_EXCLUDED] = SCALAR(FK_INT, excluded, 0, FV_SEATS),
    [F_PAID_OUT] = SCALAR(FK_LONG, paid_out, 0, MAX_LEDGER),
    [F_PAID_IN] = SCALAR(FK_LONG, paid_in, 0, MAX_LEDGER),
    [F_MOVED] = SCALAR(FK_BOOL, moved, 0, 1),
    [F_EARNED] = SCALAR(FK_LONG, earned, 0, MAX_GOLD),
    [F_DRAWS_LEFT] = SCALAR(FK_INT, draws_left, 0, 2),
    [F_AFTER_DISCARD] = OWN_FIELD("after_discard"),
    [F_LENGTH] = FLD(FK_SSIZE, _length, length, 0, 0, 0, LONG_MAX),
    [F_RNG_SHARED] = FLD(FK_BOOL, _rng_shared, rng_shared, 0, 0, 0, 1),
    [F_DREW] = FLD(FK_BOOL, _drew, drew, 0, 0, 0, 1),
};

/* The fields whose reading is Elfengold's own. */
static PyObject *get_own_field(Core *c, int f) {
    S *s = &c->st;
    switch (f) {
    case F_N: return PyLong_FromLong(s->n);
    case F_PHASE: return Py_NewRef(phase_members[s->phase]);
    case F_CURRENT: return PyLong_FromLong(s->current);
    case F_AFTER_DISCARD: return Py_NewRef(s->after_settle ? s_settle : s_next);
    case F_DRAWN: return int_list(s->drawn, s->ndrawn);
    case F_ROW: return int_list(s->row, s->nrow);
    case F_COUNTERS: {
        PyObject *l = PyList_New(NR);
        if (!l) return NULL;
        for (int r = 0; r < NR; r++) {
            PyObject *row = int_list(s->cnt[r], s->ncnt[r]);
            if (!row) { Py_DECREF(l); return NULL; }
            PyList_SET_ITEM(l, r, row);
        }
        return l;
    }
    case F_RESULT: return get_result(s);
    }
    PyErr_SetString(PyExc_AttributeError, "no such field");
    return NULL;
}

/* A list of ``lo_len``..``hi_len`` ints in lo..hi; its length into *count. */
static int read_short_list(PyObject *v, int *out, int *count, int hi_len, const char *what,
                           long lo, long hi) {
    if (!PyList_Check(v) && !PyTuple_Check(v)) {
        PyErr_Format(err_type(), "%s: a list, not %.80s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(v);
    if (len > hi_len) {
        PyErr_Format(err_type(), "%s: at most %d items", what, hi_len);
        return -1;
    }
    if (read_ints(v, out, (int)len, what, lo, hi) < 0) return -1;
    *count = (int)len;
    return 0;
}

/* The fields whose checks are Elfengold's own: 0, or -1 with the state unchanged. */
static int set_own_field(Core *c, int f, PyObject *v) {
    S *s = &c->st;
    int n = s->n;
    long x = 0;
    switch (f) {
    case F_N:
        if (read_long(v, 2, MAXP, "n (players)", &x) < 0) return -1;
        if (s->phase != P_OVER && (s->current >= x || s->starting >= x)) {
            PyErr_SetString(err_type(), "n: the player to move must stay a seat");
            return -1;
        }
        s->n = (int)x;
        return 0;
    case F_CURRENT: /* a seat while the game runs, "nobody" once it is over */
        if (read_long(v, TERMINAL_PLAYER, n - 1, "current", &x) < 0) return -1;
        if (x < 0 && x != TERMINAL_PLAYER) {
            PyErr_Format(err_type(), "current: a seat 0 to %d (%d once the game is over)",
                         n - 1, TERMINAL_PLAYER);
            return -1;
        }
        if (x == TERMINAL_PLAYER && s->phase != P_OVER) {
            PyErr_Format(err_type(), "current: %d only once the game is over", TERMINAL_PLAYER);
            return -1;
        }
        s->current = (int)x;
        return 0;
    case F_AFTER_DISCARD: {
        int settle_ = PyUnicode_Check(v) ? PyUnicode_CompareWithASCIIString(v, "settle") == 0 : 0;
        int next = PyUnicode_Check(v) ? PyUnicode_CompareWithASCIIString(v, "next") == 0 : 0;
        if (!settle_ && !next) {
            PyErr_SetString(err_type(), "after_discard: 'next' or 'settle'");
            return -1;
        }
        s->after_settle = settle_;
        return 0;
    }
    case F_PHASE: {
        int i = 0;
        while (i < NPHASE && phase_members[i] != v) i++;
        if (i == NPHASE) { PyErr_SetString(err_type(), "phase: a Phase"); return -1; }
        if (i != P_OVER && (s->current < 0 || s->current >= n)) {
            PyErr_SetString(err_type(), "phase: a game that runs needs a seat to move");
            return -1;
        }
        s->phase = i;
        return 0;
    }
    case F_DRAWN: {
        int tmp[2] = {0, 0}, count;
        if (read_short_list(v, tmp, &count, 2, "drawn", 0, NI - 1) < 0) return -1;
        memcpy(s->drawn, tmp, sizeof tmp);
        s->ndrawn = count;
        return 0;
    }
    case F_ROW: {
        int tmp[MAX_ROW] = {0}, count;
        if (read_short_list(v, tmp, &count, MAX_ROW, "row", 0, NI - 1) < 0) return -1;
        memcpy(s->row, tmp, sizeof tmp);
        s->nrow = count;
        return 0;
    }
    case F_COUNTERS: {
        int tmp[MAXR][2], counts[MAXR];
        if (!PyList_Check(v) && !PyTuple_Check(v)) {
            PyErr_SetString(err_type(), "counters: a list, one per route");
            return -1;
        }
        if (PySequence_Fast_GET_SIZE(v) != NR) {
            PyErr_Format(err_type(), "counters: expected %d routes", NR);
            return -1;
        }
        for (int r = 0; r < NR; r++)
            if (read_short_list(PySequence_Fast_GET_ITEM(v, r), tmp[r], &counts[r], 2,
                                "counters", 0, NCOUNTER - 1) < 0)
                return -1;
        memcpy(s->cnt, tmp, sizeof(int) * 2 * (size_t)NR);
        memcpy(s->ncnt, counts, sizeof(int) * (size_t)NR);
        return 0;
    }
    case F_RESULT:
        return set_result(s, v);
    }
    PyErr_SetString(PyExc_AttributeError, "no such field");
    return -1;
}

/* A rule option that is one of two strings: 1 for ``yes``; anything else is refused. */
static int read_rule_choice(PyObject *rules, const char *name, const char *no,
                            const char *yes, int *out) {
    PyObject *v = PyObject_GetAttrString(rules, name);
    if (!v) return -1;
    int is_yes = PyUnicode_Check(v) && PyUnicode_CompareWithASCIIString(v, yes) == 0;
    int is_no = PyUnicode_Check(v) && PyUnicode_CompareWithASCIIString(v, no) == 0;
    if (!is_yes && !is_no) {
        PyErr_Format(err_type(), "%s: %s or %s, not %R", name, no, yes, v);
        Py_DECREF(v);
        return -1;
    }
    Py_DECREF(v);
    *out = is_yes;
    return 0;
}

static int set_rules(Core *c, PyObject *v, void *Py_UNUSED(unused)) {
    S t = c->st;
    if (!v) { PyErr_SetString(PyExc_AttributeError, "rules cannot be deleted"); return -1; }
    if (read_rule_choice(v, "eg_card_draw", "round-robin", "three-at-once", &t.three_at_once) < 0 ||
        read_rule_choice(v, "eg_gold_in_display", "to-gold-deck", "stays-face-up",
                         &t.gold_stays) < 0 ||
        read_rule_choice(v, "eg_overbid", "allowed", "capped", &t.overbid_capped) < 0 ||
        read_rule_int(v, "eg_defaulter_rebids", &t.defaulter_rebids, 0, 1) < 0 ||
        read_rule_int(v, "eg_hand_limit", &t.hand_limit, 0, MAX_COUNT) < 0 ||
        read_rule_choice(v, "eg_hand_limit_when", "before-draw", "after-draw",
                         &t.limit_after_draw) < 0 ||
        read_rule_choice(v, "eg_used_obstacles", "return", "remove", &t.used_remove) < 0 ||
        read_rule_int(v, "eg_flight_collects_piece", &t.flight_collects, 0, 1) < 0 ||
        read_rule_int(v, "eg_exchange_same_kind", &t.exchange_same, 0, 1) < 0 ||
        read_rule_choice(v, "eg_tiebreak", "coins", "coins-cards", &t.tiebreak_cards) < 0 ||
        read_rule_int(v, "eg_witch_in_caravan", &t.witch_in_caravan, 0, 1) < 0 ||
        read_rule_choice(v, "caravan", "always", "only-if-needed", &t.caravan_if_needed) < 0 ||
        read_rule_int(v, "rounds", &t.rounds, 1, MAX_COUNT) < 0 ||
        read_rule_int(v, "random_gold", &t.random_gold, 0, 1) < 0 ||
        read_rule_int(v, "witch", &t.witch, 0, 1) < 0 ||
        read_rule_int(v, "town_cards", &t.rule_town_cards, 0, 1) < 0)
        return -1;
    c->st = t;
    c->legal_valid = 0;
    Py_INCREF(v);
    Py_XSETREF(c->rules, v);
    return 0;
}


/* A fresh state's non-zero fields (Core_new's). */
static void fresh_state(S *s) {
    s->n = 2;
    s->high_bidder = NONE;
    for (int r = 0; r < MAXR; r++) s->obstacle[r] = NONE;
    for (int p = 0; p < MAXP; p++) s->town_cards[p] = NONE;
}

#define ENGINE_TYPE_NAME "elfenland.games.elfengold._speedups.Core"
#define ENGINE_TYPE_DOC "The compiled Elfengold state (base of FastElfengoldState)."
#define ENGINE_MODULE_DOC "The compiled Elfengold engine (see fast.py)."
#define ENGINE_CONFIGURE_DOC "Hand over the board and action tables."
#define ENGINE_FRESH fresh_state
#define ENGINE_LEGAL_ON_HEAP
#define ENGINE_OWN_METHODS
/* Clone, the type and the module, shared with the other engines. */
#include "../../core/_engine_type.h"

static PyObject *configure_tables(PyObject *d) {
    int scal[5], consts[13];
    if (configure_board(d, scal, 5) < 0) return NULL;
    MAX_BID = scal[4];
    if (MAX_BID > 30000) {
        PyErr_SetString(PyExc_ValueError, "bids too high");
        return NULL;
    }
    if (int_vector(d, "fixed_gold", fixed_gold, NT) < 0 ||
        int_vector(d, "item_counts", item_counts, NI) < 0 ||
        int_vector(d, "constants", consts, 13) < 0)
        return NULL;
    travel_per_kind = consts[0]; witch_cards = consts[1]; gold_cards = consts[2];
    start_coins = consts[3]; income = consts[4]; deal_cards = consts[5];
    display_size = consts[6]; coins_per_gold_card = consts[7];
    witch_bypass_coins = consts[8]; flight_coins = consts[9]; towns_to_end = consts[10];
    lake_rafts = consts[11]; ngold_tokens = consts[12];
    if (ngold_tokens != NT - 1 || int_vector(d, "gold_tokens", gold_tokens, ngold_tokens) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "gold_tokens: one a town");
        return NULL;
    }
    PyObject *v;
    /* The action space: decode arrays by id, and the ids the generator lists. */
    if (!(v = get_key(d, "actions"))) return NULL;
    if (!PyTuple_Check(v)) { PyErr_SetString(PyExc_TypeError, "actions: a tuple"); return NULL; }
    PyObject *decoded = get_key(d, "decoded");
    if (!decoded) return NULL;
    NACT = PyTuple_GET_SIZE(v);
    if (PySequence_Length(decoded) != NACT || NACT > 1 << 30) {
        PyErr_SetString(PyExc_ValueError, "decoded: one per action");
        return NULL;
    }
    Py_INCREF(v);
    Py_XSETREF(actions_tuple, v);
    PyMem_Free(a_kind);
    PyMem_Free(a_amount);
    a_kind = PyMem_Malloc((size_t)NACT * (8 + HK));
    a_amount = PyMem_Malloc(sizeof(short) * (size_t)NACT);
    if (!a_kind || !a_amount) return PyErr_NoMemory();
    a_item = a_kind + NACT; a_route = a_item + NACT; a_dir = a_route + NACT;
    a_item2 = a_dir + NACT; a_route2 = a_item2 + NACT; a_secret = a_route2 + NACT;
    a_pay = a_secret + NACT; a_cards = a_pay + NACT;
    size_t nexch = (size_t)NCOUNTER * MAXR * NCOUNTER * MAXR;
    if (!exch_id) {
        exch_id = PyMem_Malloc(sizeof(int) * nexch);
        if (!exch_id) return PyErr_NoMemory();
    }
    for (size_t i = 0; i < nexch; i++) exch_id[i] = -1;
    memset(id_place, -1, sizeof id_place);
    memset(id_double, -1, sizeof id_double);
    memset(id_move, -1, sizeof id_move);
    memset(id_caravan, -1, sizeof id_caravan);
    id_bid1 = -1;
    int nms = 0;
    for (Py_ssize_t i = 0; i < NACT; i++) {
        /* (kind, item, route, direction, amount, item2, route2, secret, pay, c0..c7) */
        int f[9 + HK];
        PyObject *row = PySequence_GetItem(decoded, i);
        if (!row) return NULL;
        for (int j = 0; j < 9 + HK; j++)
            if (get_int_item(row, j, &f[j]) < 0) { Py_DECREF(row); return NULL; }
        Py_DECREF(row);
        int k = f[0], item = f[1], r = f[2], dd = f[3], amount = f[4];
        if (k < 0 || k > K_KEEP || item < -1 || item >= NI || r < -1 || r >= NR ||
            dd < 0 || dd > 1 || amount < 0 || amount > 30000 || f[5] < -1 ||
            f[5] >= NCOUNTER || f[6] < -1 || f[6] >= NR || f[8] < 0 || f[8] > PAY_CARAVAN ||
            ((k == K_DRAW || k == K_HIDE || k == K_DISCARD || k == K_KEEP || k == K_PLACE ||
              k == K_DOUBLE || k == K_EXCHANGE) && item < 0) ||
            ((k == K_DRAW || k == K_DISCARD) && item >= HK) ||
            ((k == K_PLACE || k == K_DOUBLE || k == K_EXCHANGE) && item >= NCOUNTER) ||
            ((k >= K_PLACE && k <= K_MOVE) && r < 0) ||
            (k == K_EXCHANGE && (f[5] < 0 || f[6] < 0))) {
            PyErr_Format(PyExc_ValueError, "decoded: action %zd out of range", i);
            return NULL;
        }
        a_kind[i] = (signed char)k; a_item[i] = (signed char)item; a_route[i] = (signed char)r;
        a_dir[i] = (signed char)dd; a_amount[i] = (short)amount;
        a_item2[i] = (signed char)f[5]; a_route2[i] = (signed char)f[6];
        a_secret[i] = (signed char)f[7]; a_pay[i] = (signed char)f[8];
        for (int j = 0; j < HK; j++)
            a_cards[i * HK + j] = (signed char)(f[9 + j] < 0 ? 0 : f[9 + j]);
        int id = (int)i;
        switch (k) {
        case K_DRAW: id_draw[item] = id; break;
        case K_DRAW_BLIND: id_draw_blind = id; break;
        case K_TAKE_GOLD: id_take_gold = id; break;
        case K_HIDE: id_hide[item] = id; break;
        case K_BID: if (amount == 1) id_bid1 = id; break;
        case K_PASS: id_pass = id; break;
        case K_END: id_end = id; break;
        case K_COLLECT: id_collect = id; break;
        case K_CARDS: id_cards = id; break;
        case K_DISCARD: id_discard[item] = id; break;
        case K_KEEP: id_keep[f[7] ? 1 : 0][item] = id; break;
        case K_PLACE: id_place[r][item] = id; break;
        case K_DOUBLE: id_double[r][item] = id; break;
        case K_TREE: id_tree[r] = id; break;
        case K_GOLD: id_gold[r] = id; break;
        case K_MONSTER: id_monster[r] = id; break;
        case K_EXCHANGE:
            exch_id[((item * MAXR + r) * NCOUNTER + f[5]) * MAXR + f[6]] = id;
            break;
        case K_FLY: if (amount < NT) id_fly[amount] = id; break;
        case K_MOVE:
            if (f[8] == PAY_CARAVAN) {
                int code = 0;
                for (int j = HK - 1; j >= 0; j--) code = code * 5 + (f[9 + j] < 0 ? 0 : f[9 + j]);
                if (id_caravan[r][dd] < 0) {
                    id_caravan[r][dd] = id;
                    nms = 0;
                }
                if (code >= MSCODES) {
                    PyErr_SetString(PyExc_ValueError, "decoded: a caravan of too many cards");
                    return NULL;
                }
                ms_off[code] = (short)nms++;
            } else if (item >= 0) {
                id_move[r][dd][item][f[8]] = id;
            }
            break;
        }
    }
    /* Every id a bid can have follows the bid of 1 coin, in order. */
    for (int b = 1; b <= MAX_BID; b++)
        if (id_bid1 < 0 || id_bid1 + b - 1 >= NACT || a_kind[id_bid1 + b - 1] != K_BID ||
            a_amount[id_bid1 + b - 1] != b) {
            PyErr_SetString(PyExc_ValueError, "bids: not consecutive");
            return NULL;
        }
    if (configure_members(d, "phases", phase_members, NPHASE) < 0 || configure_types(d) < 0)
        return NULL;
    Py_XSETREF(s_next, PyUnicode_InternFromString("next"));
    Py_XSETREF(s_settle, PyUnicode_InternFromString("settle"));
    if (!s_next || !s_settle) return NULL;
    Py_RETURN_NONE;
}
