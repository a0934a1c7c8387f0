/* The compiled Elfenland engine: the rules' hot path (legal actions, apply, clone,
 * resample) over plain C arrays.
 *
 * It is a translation of state.py, which stays the reference: every rule is decided
 * there first, and tests/elfenland_engine/test_fast_differential.py plays both engines
 * side by side from the same seeds and demands identical legal-action lists, states,
 * views and saved games.  Nothing here is data: the board, the action space and the
 * cost table are handed over once by fast.py (``configure``), so the map, the action
 * ids and the rule options have one source.
 *
 * Randomness goes through the state's own Python ``Rng`` (its ``random.Random``'s
 * getrandbits, used exactly as ``randrange`` uses it), so both engines draw the same
 * sequence and a saved random state means the same thing in both.
 *
 * The ``Core`` type is a base class of ``FastElfenlandState`` (fast.py), which also
 * inherits ``ElfenlandState``: every attribute the pure engine keeps (``hands``,
 * ``route_counter``, ``phase``...) is a descriptor here that reads the C arrays, so the
 * pure code's views, positions, error messages and the bots work unchanged.  Every read
 * of a list field builds a fresh list: writing into it does not change the state, nor
 * what any other reader sees (assigning a whole attribute does).
 *
 * Nothing from outside reaches the arrays unchecked (issue #22): every field setter reads
 * the whole value into a local buffer, checks each number's range (seats, towns, routes,
 * counter kinds, counts up to MAX_COUNT) and only then copies it in, raising the
 * configured ElfenlandError otherwise; the methods that index by the current player
 * check it against the phase, and a state made without __init__ raises instead of
 * reaching a NULL Rng.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <string.h>
#include <structmember.h>

#include "_state.h"

#define MAXT 32
#define MAXADJ 12
#define LEGAL_MAX 8192
#define NO_PIECE (-1)
#define TERMINAL_PLAYER (-4)
#define RAFT 6
#define MSCODES 78125 /* 5**7: a multiset of up to 4 cards of 7 kinds as a base-5 code */

enum { K_DRAW_SECRET, K_DRAW, K_DRAW_BLIND, K_PASS, K_END, K_DISCARD, K_KEEP, K_PLACE,
       K_OBSTACLE, K_MOVE };
enum { PAY_NORMAL, PAY_CARAVAN, PAY_BOATMEN };
enum { LAKE_NONE, LAKE_MAGNUM, LAKE_NEBULAE };
#define TERRAIN_LAKE 5
/* core/options.py's bounds: counts and rounds, and the one caravan size the action
 * space holds (MULTISETS[3] and, with an obstacle, MULTISETS[4]). */
#define MAX_COUNT 1000
#define CARAVAN_CARDS 3
#define ENGINE_LIST_MAX 64 /* the longest list a field holds (MAXR) */
/* The common header's board part: Elfenland's map, caravans of the seven travel cards. */
#define ENGINE_BOARD
#define ENGINE_PAY_KINDS NCARD
#define ENGINE_MSCODES MSCODES

/* ------------------------------------------------------------------ tables */
static int r_lake[MAXR];
static signed char *a_kind, *a_t, *a_route, *a_dir, *a_secret, *a_pay, *a_cards;
static int id_draw_secret, id_draw_blind, id_pass, id_end;
static int id_draw[NCOUNTER], id_discard[NCARD], id_keep_up[NCOUNTER], id_keep_secret[NCOUNTER];
static int id_place[MAXR][NCOUNTER], id_obstacle[MAXR], id_move[MAXR][2];
/* For each road and each set of owned counter kinds (6-bit mask): the placements there. */
static unsigned char place_n[MAXR][64];
static int place_ids[MAXR][64][NCOUNTER];
static int ms_max_size_lake = 3;
static PyObject *phase_members[NPHASE];
static int cards_per_kind[NCARD], counters_per_kind[NCOUNTER];
/* A new game's fast path (Core_init): the board, the Rules type, make_rules and what
 * it returned per rule-set name (one dict without, one with the destination variant),
 * the C seed of random.Random's base, and the keyword names. */
static PyObject *board_obj, *rules_type, *make_rules_fn, *rules_by_name[2], *c_seed_fn,
    *s_init_slow, *s_gauss_next, *s_players, *s_seed, *s_rules, *s_destination, *s_amigo,
    *empty_tuple;

/* ------------------------------------------------------------------ the state
 * ``S``, the position as plain C arrays, is in _state.h (the quick bot reads it too). */

enum { F_HANDS, F_CARD_PILE, F_COUNTER_PILE, F_FACE_UP, F_COUNTERS_UP, F_COUNTERS_SECRET,
       F_KEPT_UP, F_KEPT_SECRET, F_ROUTE_COUNTER, F_ROUTE_OBSTACLE, F_OBSTACLE_IN_HAND,
       F_BOOTS, F_VISITED, F_TOWN_CARDS, F_RESULT, F_N, F_ROUND, F_PHASE, F_STARTING,
       F_CURRENT, F_STEP, F_PASSES, F_DISCARDING, F_SPECIAL_VICTORY, F_LENGTH, F_RNG_SHARED };

/* A history entry (see the history buffer in _engine_common.h): the action id, and the
 * player and the fact as player | fact << 8. */
typedef struct {
    int id, info;
} HistEntry;
typedef struct Hist Hist;
#define ENGINE_HISTORY
#define ENGINE_HIST_ID(e) ((e)->id)
#define ENGINE_HIST_PLAYER(e) ((e)->info & 255)
#define ENGINE_HIST_FACT(e) PyLong_FromLong((e)->info >> 8)

typedef struct {
    PyObject_HEAD
    S st;
    int legal_valid, nlegal;
    int *legal; /* LEGAL_MAX ids, allocated on first use */
    PyObject *rules, *board, *seed, *origin, *rng, *chain, *origin_snapshot;
    /* The history is ``chain`` (links as the pure engine makes them) followed by
     * ``hcount`` entries of ``hist``: playing an action does not build a tuple, reading
     * ``_chain`` makes the links of the entries (once). */
    Hist *hist;
    Py_ssize_t hcount;
} Core;

static PyTypeObject CoreType;
/* Elfenland's own Rng maker and history store, which the shared resample uses. */
static PyObject *new_rng(PyObject *seed);
#define ENGINE_NEW_RNG new_rng
#define ENGINE_OBSERVE observe_checked

/* The code every compiled engine shares (randomness, checked input, the common methods,
 * configure): one copy for all of them. */
#include "../../core/_engine_common.h"

static int hist_append(Core *c, int id, int player, int fact) {
    HistEntry *e = hist_slot(c);
    if (!e) return -1;
    e->id = id;
    e->info = player | fact << 8;
    return 0;
}

/* Whether the state can be played: made by __init__ (rules and an Rng), and a player to
 * move that is a seat while the game runs. */
static int check_ready(Core *c) {
    if (check_set_up(c) < 0) return -1;
    S *s = &c->st;
    if (s->phase != P_OVER && (s->current < 0 || s->current >= s->n ||
                               s->starting < 0 || s->starting >= s->n)) {
        PyErr_Format(err_type(), "the player to move (%d) is not one of the %d seats",
                     s->current, s->n);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ randomness */

/* ``Rng(seed)`` for an int seed, built here: the same objects and state as Rng.__init__
 * makes (a random.Random seeded by its C base's seed, gauss_next None), without the
 * three Python frames (Rng.__init__, Random.__init__, Random.seed) a new game paid.
 * Any other seed, or types not as configure found them, take Rng(seed) itself. */
static PyObject *new_rng(PyObject *seed) {
    if (!c_seed_fn || !random_type || rng_r_offset < 0 || !PyLong_CheckExact(seed))
        return PyObject_CallOneArg(rng_type, seed);
    PyObject *r = random_type->tp_new(random_type, empty_tuple, NULL);
    if (!r) return NULL;
    PyObject *argv[2] = {r, seed};
    PyObject *ok = PyObject_Vectorcall(c_seed_fn, argv, 2, NULL);
    if (!ok || PyObject_SetAttr(r, s_gauss_next, Py_None) < 0) {
        Py_XDECREF(ok);
        Py_DECREF(r);
        return NULL;
    }
    Py_DECREF(ok);
    PyTypeObject *tp = (PyTypeObject *)rng_type;
    PyObject *rng = tp->tp_alloc(tp, 0);
    if (!rng) { Py_DECREF(r); return NULL; }
    *(PyObject **)((char *)rng + rng_r_offset) = r;
    return rng;
}

/* ------------------------------------------------------------------ rules */
static int markers(S *s, int p) { return __builtin_popcountl(s->visited[p]); }

static int distance_to_card(S *s, int p) {
    if (s->town_cards[p] == NO_PIECE) return 0;
    return dist[s->boots[p]][s->town_cards[p]];
}

static int score(S *s, int p) {
    if (s->special_victory || !s->rule_town_cards) return markers(s, p);
    return markers(s, p) - distance_to_card(s, p);
}

static int counters_of(S *s, int p) {
    return sum(s->counters_up[p], NCOUNTER) + sum(s->counters_secret[p], NCOUNTER);
}

static int can_draw(S *s) {
    return sum(s->counter_pile, NCOUNTER) + sum(s->face_up, NCOUNTER) > 0;
}

static int refill_face_up(Core *c) {
    S *s = &c->st;
    while (sum(s->face_up, NCOUNTER) < s->face_up_counters && sum(s->counter_pile, NCOUNTER) > 0) {
        int k = draw_counts(c, s->counter_pile, NCOUNTER);
        if (k < 0) return -1;
        s->face_up[k]++;
    }
    return 0;
}

static int deal(Core *c) {
    S *s = &c->st;
    for (int i = 0; i < s->n; i++) {
        int p = (s->starting + i) % s->n;
        int want = s->deal_fresh ? s->cards_per_deal : s->cards_per_deal - sum(s->hands[p], NCARD);
        for (int j = 0; j < want; j++) {
            if (sum(s->card_pile, NCARD) == 0) break;
            int k = draw_counts(c, s->card_pile, NCARD);
            if (k < 0) return -1;
            s->hands[p][k]++;
        }
    }
    return 0;
}

static int begin(Core *c, int phase);
static int end_round(Core *c);

static void finish(S *s, const int *winners, int nw) {
    s->phase = P_OVER;
    s->current = TERMINAL_PLAYER;
    if (winners) {
        memcpy(s->result, winners, sizeof(int) * nw);
        s->nresult = nw;
    } else {
        int key[MAXP][3], best = 0;
        for (int p = 0; p < s->n; p++) {
            key[p][0] = score(s, p);
            key[p][1] = (s->rule_town_cards && s->closest_breaks_ties) ? -distance_to_card(s, p) : 0;
            key[p][2] = sum(s->hands[p], NCARD);
            if (p > 0 && (key[p][0] > key[best][0] || (key[p][0] == key[best][0] &&
                (key[p][1] > key[best][1] || (key[p][1] == key[best][1] &&
                 key[p][2] > key[best][2])))))
                best = p;
        }
        s->nresult = 0;
        for (int p = 0; p < s->n; p++)
            if (key[p][0] == key[best][0] && key[p][1] == key[best][1] && key[p][2] == key[best][2])
                s->result[s->nresult++] = p;
    }
    s->has_result = 1;
}

static void keep_all(S *s, int p) {
    for (int k = 0; k < NCOUNTER; k++) {
        s->kept_up[p][k] += s->counters_up[p][k];
        s->kept_secret[p][k] += s->counters_secret[p][k];
        s->counters_up[p][k] = 0;
        s->counters_secret[p][k] = 0;
    }
}

static void return_unkept(S *s, int p) {
    for (int k = 0; k < NCOUNTER; k++) {
        s->counter_pile[k] += s->counters_up[p][k] + s->counters_secret[p][k];
        s->counters_up[p][k] = s->kept_up[p][k];
        s->counters_secret[p][k] = s->kept_secret[p][k];
        s->kept_up[p][k] = 0;
        s->kept_secret[p][k] = 0;
    }
}

static int after_keep(Core *c) {
    if (c->st.keep_after_placement) return begin(c, P_MOVE);
    return end_round(c);
}

/* How the round now ending ends (ElfenlandState._round_outcome); ``complete`` gets the
 * players who have visited every town. */
enum { OUT_NEXT, OUT_FINISH, OUT_SPECIAL_VICTORY };

static int round_outcome(S *s, int *complete, int *nc) {
    long everything = ((1L << NT) - 1) & ~(1L << CAPITAL);
    *nc = 0;
    for (int p = 0; p < s->n; p++)
        if (s->visited[p] == everything) complete[(*nc)++] = p;
    int last = s->round >= s->rounds;
    if (s->special_victory_rule) {
        int checked = !last && (!s->victory_round3_only || s->round == s->rounds - 1);
        if (*nc && checked) return OUT_SPECIAL_VICTORY;
        return last ? OUT_FINISH : OUT_NEXT;
    }
    return (*nc || last) ? OUT_FINISH : OUT_NEXT;
}

static int after_moves(Core *c) {
    S *s = &c->st;
    int complete[MAXP], nc;
    if (!s->keep_after_placement && (s->final_keep || round_outcome(s, complete, &nc) == OUT_NEXT))
        return begin(c, P_KEEP);
    return end_round(c);
}

static int next_keeper(Core *c, int first) {
    S *s = &c->st;
    if (!first) s->step++;
    while (s->step < s->n) {
        int p = (s->starting + s->step) % s->n;
        int kept = sum(s->kept_up[p], NCOUNTER) + sum(s->kept_secret[p], NCOUNTER);
        if (kept < s->counters_kept && counters_of(s, p) > 0) {
            if (kept + counters_of(s, p) <= s->counters_kept) {
                keep_all(s, p);
            } else {
                s->current = p;
                return 0;
            }
        }
        return_unkept(s, p);
        s->step++;
    }
    return after_keep(c);
}

static int begin(Core *c, int phase) {
    S *s = &c->st;
    s->phase = phase;
    s->step = 0;
    s->passes = 0;
    s->discarding = 0;
    s->current = s->starting;
    if (phase == P_DRAW_SECRET && sum(s->counter_pile, NCOUNTER) == 0)
        return begin(c, P_DRAW_COUNTERS);
    if (phase == P_DRAW_COUNTERS && !can_draw(s))
        return begin(c, P_PLACE);
    if (phase == P_KEEP)
        return next_keeper(c, 1);
    return 0;
}

static int start_round(Core *c) {
    if (deal(c) < 0) return -1;
    return begin(c, P_DRAW_SECRET);
}

static int end_round(Core *c) {
    S *s = &c->st;
    for (int r = 0; r < NR; r++) {
        int kind = s->route_counter[r];
        if (kind != NO_PIECE) {
            s->counter_pile[kind]++;
            s->route_counter[r] = NO_PIECE;
        }
        s->route_obstacle[r] = NO_PIECE;
    }
    if (refill_face_up(c) < 0) return -1;
    int complete[MAXP], nc;
    int outcome = round_outcome(s, complete, &nc);
    if (outcome == OUT_SPECIAL_VICTORY) {
        s->special_victory = 1;
        int best = -1, won[MAXP], nw = 0;
        for (int i = 0; i < nc; i++) {
            int h = sum(s->hands[complete[i]], NCARD);
            if (h > best) best = h;
        }
        for (int i = 0; i < nc; i++)
            if (sum(s->hands[complete[i]], NCARD) == best) won[nw++] = complete[i];
        finish(s, won, nw);
    } else if (outcome == OUT_FINISH) {
        finish(s, NULL, 0);
    } else {
        s->round++;
        /* The starting player passes to the left from wherever it is. */
        s->starting = (s->starting + 1) % s->n;
        return start_round(c);
    }
    return 0;
}

static int advance(Core *c) {
    S *s = &c->st;
    s->step++;
    int rounds = s->phase == P_DRAW_SECRET ? 1 : s->counter_draws;
    if (s->step >= rounds * s->n)
        return begin(c, s->phase == P_DRAW_SECRET ? P_DRAW_COUNTERS : P_PLACE);
    s->current = (s->starting + s->step) % s->n;
    if (s->phase == P_DRAW_SECRET && sum(s->counter_pile, NCOUNTER) == 0)
        return begin(c, P_DRAW_COUNTERS);
    if (s->phase == P_DRAW_COUNTERS && !can_draw(s))
        return begin(c, P_PLACE);
    return 0;
}

static int after_placement_turn(Core *c, int passed) {
    S *s = &c->st;
    s->passes = passed ? s->passes + 1 : 0;
    if (s->passes >= s->n)
        return begin(c, s->keep_after_placement && (s->final_keep || s->round < s->rounds)
                        ? P_KEEP : P_MOVE);
    s->step++;
    s->current = (s->current + 1) % s->n;
    return 0;
}

static int end_move(Core *c, int p) {
    S *s = &c->st;
    if (sum(s->hands[p], NCARD) > s->hand_limit) {
        s->discarding = 1;
        return 0;
    }
    s->discarding = 0;
    s->step++;
    if (s->step >= s->n) return after_moves(c);
    s->current = (s->starting + s->step) % s->n;
    return 0;
}

/* (kind, cards) of a normal step, or 0 if none is possible (ElfenlandState.step_cost). */
static int step_cost(S *s, int r, int dir, int *kind, int *n) {
    if (r_road[r]) {
        int k = s->route_counter[r];
        if (k == NO_PIECE) return 0;
        int x = cost_tab[k][r_terrain[r]];
        if (x < 0) return 0;
        *kind = k;
        *n = x + (s->route_obstacle[r] != NO_PIECE);
        return 1;
    }
    *kind = RAFT;
    if (r_terrain[r] == TERRAIN_RIVER) {
        *n = river_rafts(r, dir);
    } else {
        *n = r_lake[r] == LAKE_NEBULAE ? s->nebulae_rafts : s->magnum_rafts;
    }
    return 1;
}

/* ------------------------------------------------------------------ legal actions */
static int generate(Core *c) {
    S *s = &c->st;
    if (check_ready(c) < 0) return -1;
    if (!c->legal) {
        c->legal = PyMem_Malloc(sizeof(int) * LEGAL_MAX);
        if (!c->legal) { PyErr_NoMemory(); return -1; }
    }
    int *out = c->legal, n = 0, p = s->current;
    switch (s->phase) {
    case P_DRAW_SECRET:
        out[n++] = id_draw_secret;
        break;
    case P_DRAW_COUNTERS:
        for (int k = 0; k < NCOUNTER; k++) if (s->face_up[k]) out[n++] = id_draw[k];
        if (sum(s->counter_pile, NCOUNTER)) out[n++] = id_draw_blind;
        break;
    case P_PLACE: {
        out[n++] = id_pass;
        int mask = 0;
        for (int k = 0; k < NCOUNTER; k++)
            if (s->counters_up[p][k] || s->counters_secret[p][k]) mask |= 1 << k;
        /* Without branches on the board (they mispredict): a road's whole row of
         * placements is copied (out has room) and counted only if the road is free. */
        if (mask) {
            for (int i = 0; i < NROADS; i++) {
                int r = roads[i];
                memcpy(out + n, place_ids[r][mask], sizeof(int) * NCOUNTER);
                n += s->route_counter[r] == NO_PIECE ? place_n[r][mask] : 0;
            }
        }
        if (s->obstacle_in_hand[p]) {
            for (int i = 0; i < NROADS; i++) {
                int r = roads[i];
                out[n] = id_obstacle[r];
                n += s->route_counter[r] != NO_PIECE && s->route_obstacle[r] == NO_PIECE;
            }
        }
        break;
    }
    case P_KEEP:
        for (int k = 0; k < NCOUNTER; k++) if (s->counters_up[p][k]) out[n++] = id_keep_up[k];
        for (int k = 0; k < NCOUNTER; k++)
            if (s->counters_secret[p][k]) out[n++] = id_keep_secret[k];
        break;
    case P_MOVE:
        if (s->discarding) {
            for (int k = 0; k < NCARD; k++) if (s->hands[p][k]) out[n++] = id_discard[k];
            break;
        } else {
            int here = s->boots[p];
            const int *hand = s->hands[p];
            for (int i = 0; i < adj_n[here]; i++) {
                int r = adj_r[here][i];
                int dir = r_a[r] == here ? 0 : 1;
                int kind, cost;
                if (!step_cost(s, r, dir, &kind, &cost)) continue;
                if (hand[kind] >= cost) {
                    out[n++] = id_move[r][dir];
                    if (s->caravan_if_needed && r_road[r]) continue;
                }
                int size;
                if (r_road[r]) size = s->caravan_cards + (s->route_obstacle[r] != NO_PIECE);
                else if (r_lake[r] == LAKE_NEBULAE && s->boatmen) size = s->caravan_cards;
                else continue;
                if (!r_road[r] && size > ms_max_size_lake) {
                    PyErr_SetString(PyExc_KeyError, "payment outside the action space");
                    return -1;
                }
                if (paid_steps(out, &n, id_move[r][dir] + 1, hand, size) < 0) return -1;
            }
            out[n++] = id_end;
        }
        break;
    default:
        break;
    }
    c->nlegal = n;
    c->legal_valid = 1;
    return 0;
}

static int ensure_legal(Core *c) {
    if (c->legal_valid) return 0;
    return generate(c);
}

/* ------------------------------------------------------------------ effects */
/* Play a legal action; returns the fact the log keeps for it, or -1 with an error. */
static int do_action(Core *c, int id) {
    S *s = &c->st;
    int p = s->current, k = a_kind[id], t = a_t[id], fact = 0, got;
    switch (k) {
    case K_DRAW_SECRET:
        got = draw_counts(c, s->counter_pile, NCOUNTER);
        if (got < 0) return -1;
        s->counters_secret[p][got]++;
        fact = got;
        if (advance(c) < 0) return -1;
        break;
    case K_DRAW:
    case K_DRAW_BLIND:
        if (k == K_DRAW) {
            got = t;
            s->face_up[got]--;
            if (refill_face_up(c) < 0) return -1;
        } else {
            got = draw_counts(c, s->counter_pile, NCOUNTER);
            if (got < 0) return -1;
        }
        s->counters_up[p][got]++;
        fact = got;
        if (advance(c) < 0) return -1;
        break;
    case K_PLACE:
        if (s->counters_up[p][t]) {
            s->counters_up[p][t]--;
        } else {
            s->counters_secret[p][t]--;
            fact = 1;
        }
        s->route_counter[a_route[id]] = t;
        if (after_placement_turn(c, 0) < 0) return -1;
        break;
    case K_OBSTACLE:
        s->obstacle_in_hand[p] = 0;
        s->route_obstacle[a_route[id]] = p;
        if (after_placement_turn(c, 0) < 0) return -1;
        break;
    case K_PASS:
        if (after_placement_turn(c, 1) < 0) return -1;
        break;
    case K_KEEP: {
        if (a_secret[id]) {
            s->counters_secret[p][t]--;
            s->kept_secret[p][t]++;
        } else {
            s->counters_up[p][t]--;
            s->kept_up[p][t]++;
        }
        int kept = sum(s->kept_up[p], NCOUNTER) + sum(s->kept_secret[p], NCOUNTER);
        if (kept >= s->counters_kept || counters_of(s, p) == 0) {
            return_unkept(s, p);
            if (next_keeper(c, 0) < 0) return -1;
        }
        break;
    }
    case K_MOVE: {
        int r = a_route[id], dir = a_dir[id];
        int *hand = s->hands[p];
        if (a_pay[id] == PAY_NORMAL) {
            int kind, n;
            if (!step_cost(s, r, dir, &kind, &n)) {
                PyErr_SetString(PyExc_AssertionError, "a legal step has a cost");
                return -1;
            }
            hand[kind] -= n;
            s->card_pile[kind] += n;
            fact = kind * 16 + n;
        } else {
            const signed char *cards = a_cards + (Py_ssize_t)id * NCARD;
            for (int i = 0; i < NCARD; i++) {
                hand[i] -= cards[i];
                s->card_pile[i] += cards[i];
            }
        }
        int to = dir == 0 ? r_b[r] : r_a[r];
        s->boots[p] = to;
        if (to != CAPITAL) s->visited[p] |= 1L << to;
        break;
    }
    case K_END:
        if (end_move(c, p) < 0) return -1;
        break;
    case K_DISCARD:
        s->hands[p][t]--;
        s->card_pile[t]++;
        if (end_move(c, p) < 0) return -1;
        break;
    }
    return fact;
}

/* Play legal action ``id`` (already checked) and append it to the history chain. */
static int play(Core *c, Py_ssize_t id, PyObject *action) {
    int player = c->st.current;
    c->legal_valid = 0;
    int fact = do_action(c, (int)id);
    if (fact < 0) return -1;
    (void)action; /* always actions_tuple[id]: the id is what the history keeps */
    if (hist_append(c, (int)id, player, fact) < 0) return -1;
    c->st.length++;
    return 0;
}

/* A new game with ``n`` players (ElfenlandState._init_empty then _setup); the rules,
 * board, seed and a fresh Rng are set first. */
static PyObject *Core_start(Core *c, PyObject *arg) {
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 2 || n > MAXP) { PyErr_SetString(PyExc_ValueError, "2 to 6 players"); return NULL; }
    if (!c->rng) { PyErr_SetString(err_type(), "no rng: set rules and rng first"); return NULL; }
    c->legal_valid = 0;
    S *s = &c->st;
    S rules = *s;
    memset(s, 0, sizeof *s);
    /* keep the rules read by set_rules */
    s->deal_fresh = rules.deal_fresh; s->cards_per_deal = rules.cards_per_deal;
    s->hand_limit = rules.hand_limit; s->counters_kept = rules.counters_kept;
    s->keep_after_placement = rules.keep_after_placement;
    s->face_up_counters = rules.face_up_counters; s->counter_draws = rules.counter_draws;
    s->magnum_rafts = rules.magnum_rafts; s->nebulae_rafts = rules.nebulae_rafts;
    s->boatmen = rules.boatmen; s->special_victory_rule = rules.special_victory_rule;
    s->rounds = rules.rounds; s->caravan_cards = rules.caravan_cards;
    s->closest_breaks_ties = rules.closest_breaks_ties; s->rule_town_cards = rules.rule_town_cards;
    s->caravan_if_needed = rules.caravan_if_needed;
    s->victory_round3_only = rules.victory_round3_only; s->final_keep = rules.final_keep;
    s->n = (int)n;
    s->round = 1;
    s->phase = P_DRAW_SECRET;
    memcpy(s->card_pile, cards_per_kind, sizeof s->card_pile);
    memcpy(s->counter_pile, counters_per_kind, sizeof s->counter_pile);
    for (int r = 0; r < MAXR; r++) s->route_counter[r] = s->route_obstacle[r] = NO_PIECE;
    for (int p = 0; p < MAXP; p++) {
        s->obstacle_in_hand[p] = 1;
        s->boots[p] = CAPITAL;
        s->town_cards[p] = NO_PIECE;
    }
    Py_CLEAR(c->chain);
    hist_release(c);
    Py_CLEAR(c->origin);
    Py_CLEAR(c->origin_snapshot);
    if (s->rule_town_cards) {
        PyObject *pool = PyList_New(NTC);
        if (!pool) return NULL;
        for (int i = 0; i < NTC; i++) {
            PyObject *x = PyLong_FromLong(tc_list[i]);
            if (!x) { Py_DECREF(pool); return NULL; }
            PyList_SET_ITEM(pool, i, x);
        }
        PyObject *ok = PyObject_CallMethodOneArg(c->rng, s_shuffle, pool);
        if (!ok) { Py_DECREF(pool); return NULL; }
        Py_DECREF(ok);
        for (int p = 0; p < n && p < NTC; p++)
            s->town_cards[p] = (int)PyLong_AsLong(PyList_GET_ITEM(pool, p));
        Py_DECREF(pool);
    }
    if (refill_face_up(c) < 0 || start_round(c) < 0) return NULL;
    Py_RETURN_NONE;
}

/* position.resample, draw for draw: the hidden parts dealt again from what ``player``
 * has not seen, with ``rng``.  The origin (the position at the resample) is kept as a
 * snapshot and written out only if someone asks for it. */
static PyObject *Core_resample(Core *c, PyObject *args) {
    int player;
    PyObject *rng;
    Core *d = resample_begin(c, args, &player, &rng);
    if (!d) return NULL;
    S *s = &c->st;
    S *t = &d->st;
    int card_pool[NCARD], counter_pool[NCOUNTER];
    memcpy(card_pool, s->card_pile, sizeof card_pool);
    memcpy(counter_pool, s->counter_pile, sizeof counter_pool);
    for (int p = 0; p < s->n; p++) {
        if (p == player) continue;
        for (int k = 0; k < NCARD; k++) card_pool[k] += s->hands[p][k];
        for (int k = 0; k < NCOUNTER; k++)
            counter_pool[k] += s->counters_secret[p][k] + s->kept_secret[p][k];
    }
    for (int p = 0; p < s->n; p++) {
        if (p == player) continue;
        if (redeal_counts(rng, t->hands[p], s->hands[p], card_pool, NCARD) < 0 ||
            redeal_counts(rng, t->counters_secret[p], s->counters_secret[p], counter_pool,
                          NCOUNTER) < 0 ||
            redeal_counts(rng, t->kept_secret[p], s->kept_secret[p], counter_pool, NCOUNTER) < 0)
            goto fail;
    }
    memcpy(t->card_pile, card_pool, sizeof card_pool);
    memcpy(t->counter_pile, counter_pool, sizeof counter_pool);
    if (s->rule_town_cards && s->phase != P_OVER && redeal_town_cards(s, t, player, rng) < 0)
        goto fail;
    return resample_finish(d, rng);
fail:
    Py_DECREF(d);
    return NULL;
}

/* The attributes (see FieldSpec): kind, place, length and bounds of each. */
static const FieldSpec fields[] = {
    [F_HANDS] = FLD(FK_MATRIX, hands, hands, FV_N, NCARD, 0, MAX_COUNT),
    [F_CARD_PILE] = FLD(FK_INTS, card_pile, card_pile, NCARD, 0, 0, MAX_COUNT),
    [F_COUNTER_PILE] = FLD(FK_INTS, counter_pile, counter_pile, NCOUNTER, 0, 0, MAX_COUNT),
    [F_FACE_UP] = FLD(FK_INTS, face_up, face_up, NCOUNTER, 0, 0, MAX_COUNT),
    [F_COUNTERS_UP] = FLD(FK_MATRIX, counters_up, counters_up, FV_N, NCOUNTER, 0, MAX_COUNT),
    [F_COUNTERS_SECRET] =
        FLD(FK_MATRIX, counters_secret, counters_secret, FV_N, NCOUNTER, 0, MAX_COUNT),
    [F_KEPT_UP] = FLD(FK_MATRIX, kept_up, kept_up, FV_N, NCOUNTER, 0, MAX_COUNT),
    [F_KEPT_SECRET] = FLD(FK_MATRIX, kept_secret, kept_secret, FV_N, NCOUNTER, 0, MAX_COUNT),
    [F_ROUTE_COUNTER] =
        FLD(FK_INTS, route_counter, route_counter, FV_NR, 0, NO_PIECE, NCOUNTER - 1),
    [F_ROUTE_OBSTACLE] =
        FLD(FK_INTS, route_obstacle, route_obstacle, FV_NR, 0, NO_PIECE, FV_LAST),
    [F_OBSTACLE_IN_HAND] = FLD(FK_BOOLS, obstacle_in_hand, obstacle_in_hand, FV_N, 0, 0, 1),
    [F_BOOTS] = FLD(FK_INTS, boots, boots, FV_N, 0, 0, FV_LAST_TOWN),
    [F_VISITED] = OWN_FIELD("visited"),
    [F_TOWN_CARDS] = FLD(FK_INTS, town_cards, town_cards, FV_N, 0, NO_PIECE, FV_LAST_TOWN),
    [F_RESULT] = OWN_FIELD("result"),
    [F_N] = OWN_FIELD("n"),
    [F_ROUND] = SCALAR(FK_INT, round, 0, MAX_COUNT),
    [F_PHASE] = OWN_FIELD("phase"),
    [F_STARTING] = SCALAR(FK_INT, starting, 0, FV_LAST),
    [F_CURRENT] = OWN_FIELD("current"),
    [F_STEP] = SCALAR(FK_INT, step, 0, MAX_COUNT),
    [F_PASSES] = SCALAR(FK_INT, passes, 0, MAX_COUNT),
    [F_DISCARDING] = SCALAR(FK_BOOL, discarding, 0, 1),
    [F_SPECIAL_VICTORY] = SCALAR(FK_BOOL, special_victory, 0, 1),
    [F_LENGTH] = FLD(FK_SSIZE, _length, length, 0, 0, 0, LONG_MAX),
    [F_RNG_SHARED] = FLD(FK_BOOL, _rng_shared, rng_shared, 0, 0, 0, 1),
};

/* The fields whose reading is Elfenland's own. */
static PyObject *get_own_field(Core *c, int f) {
    S *s = &c->st;
    switch (f) {
    case F_N: return PyLong_FromLong(s->n);
    case F_PHASE: return Py_NewRef(phase_members[s->phase]);
    case F_CURRENT: return PyLong_FromLong(s->current);
    case F_VISITED: return long_list(s->visited, s->n);
    case F_RESULT: return get_result(s);
    }
    PyErr_SetString(PyExc_AttributeError, "no such field");
    return NULL;
}

/* The fields whose checks are Elfenland's own: 0, or -1 with the state unchanged. */
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
    case F_CURRENT: /* a seat, or the finished game's "nobody" */
        if (read_long(v, TERMINAL_PLAYER, n - 1, "current", &x) < 0) return -1;
        if (x < 0 && x != TERMINAL_PLAYER) {
            PyErr_Format(err_type(), "current: a seat 0 to %d (%d once the game is over)",
                         n - 1, TERMINAL_PLAYER);
            return -1;
        }
        s->current = (int)x;
        return 0;
    case F_PHASE: {
        int i = 0;
        while (i < NPHASE && phase_members[i] != v) i++;
        if (i == NPHASE) { PyErr_SetString(err_type(), "phase: a Phase"); return -1; }
        s->phase = i;
        return 0;
    }
    case F_VISITED: {
        long tmp[MAXP];
        if (!PyList_Check(v) && !PyTuple_Check(v)) {
            PyErr_SetString(err_type(), "visited: a list");
            return -1;
        }
        if (PySequence_Fast_GET_SIZE(v) != n) {
            PyErr_SetString(err_type(), "visited: one per player");
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (read_long(PySequence_Fast_GET_ITEM(v, i), 0, (1L << NT) - 1, "visited",
                          &tmp[i]) < 0)
                return -1;
        memcpy(s->visited, tmp, sizeof(long) * (size_t)n);
        return 0;
    }
    case F_RESULT:
        return set_result(s, v);
    }
    PyErr_SetString(PyExc_AttributeError, "no such field");
    return -1;
}

static int read_rule_eq(PyObject *rules, const char *name, const char *value, int *out) {
    PyObject *v = PyObject_GetAttrString(rules, name);
    if (!v) return -1;
    PyObject *want = PyUnicode_FromString(value);
    if (!want) { Py_DECREF(v); return -1; }
    int eq = PyObject_RichCompareBool(v, want, Py_EQ);
    Py_DECREF(v);
    Py_DECREF(want);
    if (eq < 0) return -1;
    *out = eq;
    return 0;
}

/* Rules read before, by identity: a Rules is a frozen dataclass, and every new game
 * reads the same few (AMIGO, MOON...).  The block of rule fields is S's first members. */
#define RULES_MEMO 8
#define RULE_BYTES offsetof(S, n)
static PyObject *memo_rules[RULES_MEMO];
static S memo_fields[RULES_MEMO];
static int memo_next;

static int set_rules(Core *c, PyObject *v, void *Py_UNUSED(unused)) {
    S *s = &c->st, t = c->st;
    if (!v) { PyErr_SetString(PyExc_AttributeError, "rules cannot be deleted"); return -1; }
    int memo = rules_type && Py_IS_TYPE(v, (PyTypeObject *)rules_type);
    if (memo) {
        for (int i = 0; i < RULES_MEMO; i++)
            if (memo_rules[i] == v) {
                memcpy(&t, &memo_fields[i], RULE_BYTES);
                goto parsed;
            }
    }
    if (read_rule_eq(v, "deal", "fresh", &t.deal_fresh) < 0 ||
        read_rule_int(v, "cards_per_deal", &t.cards_per_deal, 1, MAX_COUNT) < 0 ||
        read_rule_int(v, "hand_limit", &t.hand_limit, 1, MAX_COUNT) < 0 ||
        read_rule_int(v, "counters_kept", &t.counters_kept, 0, 5) < 0 ||
        read_rule_eq(v, "keep_when", "after-placement", &t.keep_after_placement) < 0 ||
        read_rule_int(v, "face_up_counters", &t.face_up_counters, 1, MAX_COUNT) < 0 ||
        read_rule_int(v, "counter_draws", &t.counter_draws, 1, MAX_COUNT) < 0 ||
        read_rule_int(v, "mare_magnum_rafts", &t.magnum_rafts, 1, MAX_COUNT) < 0 ||
        read_rule_int(v, "mare_nebulae_rafts", &t.nebulae_rafts, 1, MAX_COUNT) < 0 ||
        read_rule_int(v, "boatmen", &t.boatmen, 0, 1) < 0 ||
        read_rule_int(v, "town_cards", &t.rule_town_cards, 0, 1) < 0 ||
        read_rule_eq(v, "early_end", "special-victory", &t.special_victory_rule) < 0 ||
        read_rule_int(v, "rounds", &t.rounds, 1, MAX_COUNT) < 0 ||
        read_rule_int(v, "caravan_cards", &t.caravan_cards, CARAVAN_CARDS, CARAVAN_CARDS) < 0 ||
        read_rule_int(v, "closest_breaks_ties", &t.closest_breaks_ties, 0, 1) < 0 ||
        read_rule_eq(v, "caravan", "only-if-needed", &t.caravan_if_needed) < 0 ||
        read_rule_eq(v, "special_victory_at", "round-3", &t.victory_round3_only) < 0 ||
        read_rule_int(v, "final_keep", &t.final_keep, 0, 1) < 0)
        return -1;
    if (memo) {
        memcpy(&memo_fields[memo_next], &t, RULE_BYTES);
        Py_INCREF(v);
        Py_XSETREF(memo_rules[memo_next], v);
        memo_next = (memo_next + 1) % RULES_MEMO;
    }
parsed:
    *s = t;
    c->legal_valid = 0;
    Py_INCREF(v);
    Py_XSETREF(c->rules, v);
    return 0;
}


/* A fresh state's non-zero fields (Core_new's). */
static void fresh_state(S *s) {
    s->n = 2;
    for (int r = 0; r < MAXR; r++) s->route_counter[r] = s->route_obstacle[r] = NO_PIECE;
}

static int Core_init(Core *c, PyObject *args, PyObject *kw);
static int module_init(void);

#define ENGINE_TYPE_NAME "elfenland.games.elfenland._speedups.Core"
#define ENGINE_TYPE_DOC "The compiled Elfenland state (base of FastElfenlandState)."
#define ENGINE_MODULE_DOC "The compiled Elfenland engine (see fast.py)."
#define ENGINE_CONFIGURE_DOC "Hand over the board and action tables."
#define ENGINE_FRESH fresh_state
#define ENGINE_INIT Core_init
#define ENGINE_MODULE_INIT module_init
#define ENGINE_LEGAL_ON_HEAP
#define ENGINE_OWN_METHODS
/* Clone, the observation wrappers, the type and the module, shared with the other
 * engines. */
#include "../../core/_engine_type.h"

/* FastElfenlandState(players, seed, rules, destination) for the everyday call (an int
 * player count in range, an int seed, a rule-set name, a bool destination, no rule
 * options): ElfenlandState.__init__'s work without its Python frame.  Anything else,
 * including every error, goes to fast.py's _init_slow, the same code in Python. */
static int Core_init(Core *c, PyObject *args, PyObject *kw) {
    PyObject *v[4] = {NULL, NULL, NULL, NULL}; /* players, seed, rules, destination */
    Py_ssize_t na = PyTuple_GET_SIZE(args);
    int fast = board_obj != NULL && na <= 4;
    for (Py_ssize_t i = 0; fast && i < na; i++) v[i] = PyTuple_GET_ITEM(args, i);
    if (fast && kw) {
        Py_ssize_t pos = 0;
        PyObject *k, *val;
        while (PyDict_Next(kw, &pos, &k, &val)) {
            int i = k == s_players ? 0 : k == s_seed ? 1 : k == s_rules ? 2
                  : k == s_destination ? 3 : -1;
            if (i < 0 || v[i]) { fast = 0; break; }
            v[i] = val;
        }
    }
    long n = 4;
    if (fast && v[0]) {
        if (!PyLong_CheckExact(v[0])) fast = 0;
        else {
            int overflow;
            n = PyLong_AsLongAndOverflow(v[0], &overflow);
            if (overflow || n < 2 || n > MAXP) fast = 0;
        }
    }
    fast = fast && v[1] && PyLong_CheckExact(v[1])
        && (!v[2] || PyUnicode_CheckExact(v[2]))
        && (!v[3] || v[3] == Py_True || v[3] == Py_False);
    if (!fast) {
        PyObject *slow = PyObject_GetAttr((PyObject *)c, s_init_slow);
        if (!slow) return -1;
        PyObject *ok = PyObject_Call(slow, args, kw);
        Py_DECREF(slow);
        if (!ok) return -1;
        Py_DECREF(ok);
        return 0;
    }
    PyObject *name = v[2] ? v[2] : s_amigo, *cache = rules_by_name[v[3] == Py_True];
    PyObject *rules = PyDict_GetItemWithError(cache, name);
    if (rules) Py_INCREF(rules);
    else {
        if (PyErr_Occurred()) return -1;
        rules = PyObject_CallFunctionObjArgs(make_rules_fn, name, v[3] ? v[3] : Py_False,
                                             NULL);
        if (!rules) return -1;
        if (PyDict_GET_SIZE(cache) < 64 && PyDict_SetItem(cache, name, rules) < 0) {
            Py_DECREF(rules);
            return -1;
        }
    }
    int bad = set_rules(c, rules, NULL);
    Py_DECREF(rules);
    if (bad < 0) return -1;
    PyObject *rng = new_rng(v[1]);
    if (!rng) return -1;
    Py_INCREF(board_obj);
    Py_XSETREF(c->board, board_obj);
    Py_INCREF(v[1]);
    Py_XSETREF(c->seed, v[1]);
    Py_CLEAR(c->origin);
    Py_CLEAR(c->origin_snapshot);
    Py_XSETREF(c->rng, rng);
    c->st.rng_shared = 0;
    PyObject *nobj = PyLong_FromLong(n);
    if (!nobj) return -1;
    PyObject *ok = Core_start(c, nobj);
    Py_DECREF(nobj);
    if (!ok) return -1;
    Py_DECREF(ok);
    return 0;
}


/* configure(tables): the board, the action space and the Python types, from fast.py. */
static PyObject *configure_tables(PyObject *d) {
    PyObject *v;
    int scal[4];
    if (configure_board(d, scal, 4) < 0 || int_vector(d, "route_lake", r_lake, NR) < 0)
        return NULL;
    /* The action space: decode arrays by id, and the ids the generator lists. */
    if (!(v = get_key(d, "actions"))) return NULL;
    if (!PyTuple_Check(v)) { PyErr_SetString(PyExc_TypeError, "actions: a tuple"); return NULL; }
    PyObject *decoded = get_key(d, "decoded");
    if (!decoded) return NULL;
    NACT = PyTuple_GET_SIZE(v);
    if (PySequence_Length(decoded) != NACT) {
        PyErr_SetString(PyExc_ValueError, "decoded: one per action");
        return NULL;
    }
    Py_INCREF(v);
    Py_XSETREF(actions_tuple, v);
    PyMem_Free(a_kind);
    a_kind = PyMem_Malloc((size_t)NACT * (6 + NCARD));
    if (!a_kind) return PyErr_NoMemory();
    a_t = a_kind + NACT; a_route = a_t + NACT; a_dir = a_route + NACT;
    a_secret = a_dir + NACT; a_pay = a_secret + NACT; a_cards = a_pay + NACT;
    for (int r = 0; r < NR; r++) {
        id_obstacle[r] = id_move[r][0] = id_move[r][1] = -1;
        for (int k = 0; k < NCOUNTER; k++) id_place[r][k] = -1;
    }
    for (Py_ssize_t i = 0; i < NACT; i++) {
        /* (kind, transport, route, direction, secret, pay, c0..c6), -1 for none */
        int f[6 + NCARD];
        PyObject *row = PySequence_GetItem(decoded, i);
        if (!row) return NULL;
        for (int j = 0; j < 6 + NCARD; j++)
            if (get_int_item(row, j, &f[j]) < 0) { Py_DECREF(row); return NULL; }
        Py_DECREF(row);
        a_kind[i] = f[0]; a_t[i] = f[1]; a_route[i] = f[2]; a_dir[i] = f[3];
        a_secret[i] = f[4]; a_pay[i] = f[5];
        for (int j = 0; j < NCARD; j++) a_cards[i * NCARD + j] = f[6 + j] < 0 ? 0 : f[6 + j];
        int k = f[0], t = f[1], r = f[2];
        switch (k) {
        case K_DRAW_SECRET: id_draw_secret = (int)i; break;
        case K_DRAW: id_draw[t] = (int)i; break;
        case K_DRAW_BLIND: id_draw_blind = (int)i; break;
        case K_PASS: id_pass = (int)i; break;
        case K_END: id_end = (int)i; break;
        case K_DISCARD: id_discard[t] = (int)i; break;
        case K_KEEP: if (f[4]) id_keep_secret[t] = (int)i; else id_keep_up[t] = (int)i; break;
        case K_PLACE: if (cost_tab[t][r_terrain[r]] >= 0) id_place[r][t] = (int)i; break;
        case K_OBSTACLE: id_obstacle[r] = (int)i; break;
        case K_MOVE: if (f[5] == PAY_NORMAL) id_move[r][f[3]] = (int)i; break;
        }
    }
    for (int r = 0; r < NR; r++)
        for (int mask = 0; mask < 64; mask++) {
            place_n[r][mask] = 0;
            for (int k = 0; k < NCOUNTER; k++)
                if ((mask >> k & 1) && id_place[r][k] >= 0)
                    place_ids[r][mask][place_n[r][mask]++] = id_place[r][k];
        }
    /* Paid steps follow their normal step: offsets by multiset code. */
    if (!(v = get_key(d, "multisets"))) return NULL;
    Py_ssize_t nms = PySequence_Length(v);
    for (Py_ssize_t i = 0; i < nms; i++) {
        int counts[NCARD], code = 0;
        PyObject *row = PySequence_GetItem(v, i);
        if (!row) return NULL;
        for (int j = 0; j < NCARD; j++)
            if (get_int_item(row, j, &counts[j]) < 0) { Py_DECREF(row); return NULL; }
        Py_DECREF(row);
        for (int j = NCARD - 1; j >= 0; j--) code = code * 5 + counts[j];
        ms_off[code] = (short)i;
    }
    if (int_vector(d, "lake_payment_size", &ms_max_size_lake, 1) < 0) return NULL;
    if (configure_members(d, "phases", phase_members, NPHASE) < 0 ||
        int_vector(d, "cards_per_kind", cards_per_kind, NCARD) < 0 ||
        int_vector(d, "counters_per_kind", counters_per_kind, NCOUNTER) < 0 ||
        configure_types(d) < 0)
        return NULL;
    /* The new-game fast path (Core_init, new_rng): without these keys, or with a
     * random.Random whose base seed is not C, every new game takes the Python path. */
    Py_CLEAR(board_obj);
    Py_CLEAR(c_seed_fn);
    PyObject *fast_keys[] = {PyDict_GetItemString(d, "board"),
                             PyDict_GetItemString(d, "rules_type"),
                             PyDict_GetItemString(d, "make_rules")};
    if (fast_keys[0] && fast_keys[1] && fast_keys[2] && PyType_Check(fast_keys[1])) {
        Py_XSETREF(rules_type, Py_NewRef(fast_keys[1]));
        Py_XSETREF(make_rules_fn, Py_NewRef(fast_keys[2]));
        for (int i = 0; i < 2; i++) {
            Py_XSETREF(rules_by_name[i], PyDict_New());
            if (!rules_by_name[i]) return NULL;
        }
        board_obj = Py_NewRef(fast_keys[0]);
    }
    if (random_type && random_type->tp_base) {
        PyObject *descr = PyDict_GetItemString(random_type->tp_base->tp_dict, "seed");
        if (descr && Py_IS_TYPE(descr, &PyMethodDescr_Type)) c_seed_fn = Py_NewRef(descr);
    }
    Py_RETURN_NONE;
}

/* The module init's own work: the names Core_init compares with, interned. */
static int module_init(void) {
    s_init_slow = PyUnicode_InternFromString("_init_slow");
    s_gauss_next = PyUnicode_InternFromString("gauss_next");
    s_players = PyUnicode_InternFromString("players");
    s_seed = PyUnicode_InternFromString("seed");
    s_rules = PyUnicode_InternFromString("rules");
    s_destination = PyUnicode_InternFromString("destination");
    s_amigo = PyUnicode_InternFromString("amigo");
    empty_tuple = PyTuple_New(0);
    if (!s_init_slow || !s_gauss_next || !s_players || !s_seed || !s_rules ||
        !s_destination || !s_amigo || !empty_tuple)
        return -1;
    return 0;
}

/* ------------------------------------------------------------------ observations
 * For the research adapters (elfenland/envs/observation.py, which stays the reference:
 * tests/envs/test_observation_fast.py demands the same numbers, bit for bit).  The
 * vector is written straight into a caller's float32 buffer, so a learning loop pays
 * for neither the attribute lists nor a new array; the layout is the one
 * ``_elfenland_layout`` documents (block order and sizes), rebuilt here from n.  Only
 * what ``view(player)`` shows goes in: the hand and secret counters of ``player``
 * alone, town cards of others only once the game is over. */

static Py_ssize_t obs_seat_size(void) { return 3 * (Py_ssize_t)NT + 30; }

static Py_ssize_t obs_size(int n) {
    return 27 + 2 * n + NROADS * (6 + n) + n * obs_seat_size();
}

static void observe(S *s, int player, float *v) {
    int n = s->n, over = s->phase == P_OVER;
    memset(v, 0, sizeof(float) * obs_size(n));
    v[s->phase] = 1.0f;
    v[6] = (float)s->discarding;
    v[7] = (float)s->round;
    v[8] = (float)s->rounds;
    int o = 9;
    if (!over) v[o + (s->current - player + n) % n] = 1.0f;
    o += n;
    v[o + (s->starting - player + n) % n] = 1.0f;
    o += n;
    for (int k = 0; k < NCOUNTER; k++) v[o + k] = (float)s->face_up[k];
    o += NCOUNTER;
    v[o] = (float)sum(s->counter_pile, NCOUNTER);
    v[o + 1] = (float)sum(s->card_pile, NCARD);
    o += 2;
    const int rules[10] = {s->deal_fresh, s->keep_after_placement, s->boatmen,
                           s->rule_town_cards, s->special_victory_rule, s->magnum_rafts,
                           s->nebulae_rafts, s->hand_limit, s->counters_kept, s->counter_draws};
    for (int k = 0; k < 10; k++) v[o + k] = (float)rules[k];
    o += 10;
    int oc = o, oo = o + NROADS * 6;
    for (int j = 0; j < NROADS; j++) {
        int r = roads[j], kind = s->route_counter[r];
        if (kind >= 0) {
            v[oc + j * 6 + kind] = 1.0f;
            int owner = s->route_obstacle[r];
            if (owner >= 0) v[oo + j * n + (owner - player + n) % n] = 1.0f;
        }
    }
    o = oo + NROADS * n;
    for (int rel = 0; rel < n; rel++) {
        int p = (player + rel) % n;
        float *w = v + o + rel * obs_seat_size();
        w[s->boots[p]] = 1.0f;
        w += NT;
        for (int t = 0; t < NT; t++)
            if (s->visited[p] >> t & 1) w[t] = 1.0f;
        w += NT;
        w[0] = (float)markers(s, p);
        w[1] = (float)sum(s->hands[p], NCARD);
        w += 2;
        for (int k = 0; k < NCOUNTER; k++) {
            w[k] = (float)s->counters_up[p][k];
            w[NCOUNTER + k] = (float)s->kept_up[p][k];
        }
        w += 2 * NCOUNTER;
        w[0] = (float)(sum(s->counters_secret[p], NCOUNTER) + sum(s->kept_secret[p], NCOUNTER));
        w[1] = (float)s->obstacle_in_hand[p];
        w += 2;
        if (p == player) {
            for (int k = 0; k < NCARD; k++) w[k] = (float)s->hands[p][k];
            for (int k = 0; k < NCOUNTER; k++)
                w[NCARD + k] = (float)(s->counters_secret[p][k] + s->kept_secret[p][k]);
        }
        w += NCARD + NCOUNTER;
        if ((p == player || over) && s->town_cards[p] != NO_PIECE) {
            w[s->town_cards[p]] = 1.0f;
            w[NT] = (float)distance_to_card(s, p);
        }
    }
}
