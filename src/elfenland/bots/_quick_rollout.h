/* The Elfenland quick level's rollouts, compiled (issue #25): the tree of the
 * searcher's placements, the rollout policy's placements and the evaluation at the
 * rollout's horizon, on the engine's own arrays.
 *
 * Included by _planner.c, so that a rollout plans its journeys with the planner's search
 * directly (``best``, ``walk``), never building a Python object per plan or per step.
 * It is a port of ``_rollout`` (the root, the tree's UCB over the times a candidate
 * was listed, one new node a rollout), of ``_Policy`` (the wish policy in the placement
 * phase, ``still_best``,
 * the memo of wish journeys) and of ``evaluate`` (the margin, the towns within reach,
 * the obstacle and counters held, the last round's exact outcome) in
 * ``elfenland_quick.py``, which stay the reference: the quick level uses this code only
 * where its settings are the ones ported, and tests/bots/test_quick_rollout.py holds
 * every root's mean reward equal, bit for bit, with the Python rollouts on the same
 * deals.
 *
 * QuickRollouts(tables, engine_api, place_ids, pass_id, preference, obstacle_ids,
 * road_ends, max_candidates): one a bot, told of
 * each search (``reset``), each deal (``deal``) and each rollout (``start``);
 * ``advance(state, me, stop_at_me)`` plays the placement phase's turns by the policy
 * (stopping at ``me``'s own turn if asked, or where the phase ends), and
 * ``evaluate(state, me, exact, horizon, obstacle, cards, counter, scale)`` scores the
 * rollout's end (-1.0 for a finished game: the caller's own code scores that);
 * ``candidates(state)`` lists the searcher's roots at a turn of the rollouts' tree
 * (``candidate_ids``).  The level itself makes a search's trees (``trees``) and plays
 * each rollout whole in one call (``rollout``, and ``backup`` for a reward worked out
 * in Python); the other methods are the parts it is made of, which the tests hold to
 * the Python code one by one. */

#include <math.h>

#include "../core/_engine_api.h"
#include "../games/elfenland/_state.h"

/* The steps a journey keeps: the engine's travel cards in all bound a journey's steps
 * (each costs a card), and ``reset`` declines a game with more. */
#define QR_MAXS 128
#define QR_LEGAL 8192
#define QR_LINKS_PER_ROUND 5

typedef struct {
    int nsteps, new_towns, end;
    int hand[NK];
    int64_t usefulness;
    uint64_t towns;          /* the towns the steps end in, capital included */
    int16_t route[QR_MAXS];
    int8_t kind[QR_MAXS];    /* the counter kind a wild step lays, -1 for a move */
} QJourney;

/* What a wish journey is planned on (``_Plans._plan``'s key less the target's rules). */
typedef struct {
    uint64_t seen;
    int8_t p, boot, card, kinds;
    int8_t hand[NK];
    int8_t counters[MAXR], obstacles[MAXR];
} QKey;

typedef struct {
    uint32_t gen;
    QKey key;
    QJourney j;
} QEntry;

/* The searcher's tree of its own placements (``_Node``): a node's visits and rewards,
 * and its edges, a list of the actions it has seen listed (each with the times listed
 * and its child, -1 until tried), in arrays that a search's ``reset`` empties. */
typedef struct {
    int visits, first;
    double total;
} QNode;

typedef struct {
    int action, avail, child, next;
} QEdge;

/* The searcher's turns a rollout may descend: far more than a round's placements. */
#define QR_DEPTH 256

typedef struct {
    PyObject_HEAD
    PyObject *tables_obj, *api_obj;
    const Tables *tb;
    const EngineAPI *api;
    int nroutes;
    int place_id[MAXR][NCOUNTER];
    int obstacle_id[MAXR];
    int road_a[MAXR], road_b[MAXR]; /* a road's towns; -1 for a river or a lake */
    int pass_id, max_candidates;
    int64_t pref[NK];
    int terrain[MAXR];
    int walk_dist[MAXT * MAXT];
    uint64_t near[MAXT];
    /* the memo of wish journeys: valid entries carry this search's generation */
    QEntry *memo;
    size_t cap, count;
    uint32_t gen;
    int ready;                /* reset() accepted this game */
    /* the deal: its position before the root action, the wishes planned on it */
    S det;
    int have_det;
    int deal_have[MAXP], rollout_have[MAXP];
    QJourney deal_wish[MAXP], rollout_wish[MAXP];
    int32_t legal[QR_LEGAL];
    /* the trees of this search's roots, and the last rollout's path through one */
    QNode *nodes;
    QEdge *edges;
    int nnodes, node_cap, nedges, edge_cap, npath, roots;
    double exploration;
    int path[QR_DEPTH + 1];
} QuickRollouts;

static uint64_t
qr_hash(const QKey *k)
{
    const unsigned char *b = (const unsigned char *)k;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < sizeof *k; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static int
qr_grow(QuickRollouts *r)
{
    size_t cap = r->cap ? r->cap * 2 : 1024;
    QEntry *fresh = calloc(cap, sizeof(QEntry));
    if (!fresh) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < r->cap; i++) {
        QEntry *e = &r->memo[i];
        if (e->gen != r->gen)
            continue;
        size_t at = qr_hash(&e->key) & (cap - 1);
        while (fresh[at].gen == r->gen)
            at = (at + 1) & (cap - 1);
        fresh[at] = *e;
    }
    free(r->memo);
    r->memo = fresh;
    r->cap = cap;
    return 0;
}

/* ``owned_kinds``: the counter kinds p holds (face up, secret or set aside), a mask. */
static int
qr_held(const S *s, int p)
{
    int held = 0;
    for (int k = 0; k < NCOUNTER; k++)
        if (s->counters_up[p][k] || s->counters_secret[p][k] || s->kept_up[p][k]
            || s->kept_secret[p][k])
            held |= 1 << k;
    return held;
}

/* Player p's journey on position s: with ``wish``, ``elfenland_greedy.wish`` (a counter
 * of any kind p holds on any empty road, no caravans); else ``plan_journey`` on the laid
 * counters.  0, or -1 with the error set. */
static int
qr_plan(QuickRollouts *r, const S *s, int p, int wish, QJourney *out)
{
    const Tables *tb = r->tb;
    int wild[NK], nwild = 0;
    if (wish) {
        int held = qr_held(s, p);
        for (int k = 0; k < NCOUNTER; k++)
            if (held >> k & 1)
                wild[nwild++] = k;
    }
    int caravan = wish ? 0 : s->caravan_cards;
    int obstacle_any = wish ? 0 : caravan + 1;
    int boatmen = s->boatmen ? caravan : 0;
    int target = s->rule_town_cards && s->town_cards[p] != NO_PIECE ? s->town_cards[p] : -1;
    int counters[MAXR], obstacles[MAXR];
    for (int i = 0; i < r->nroutes; i++) {
        counters[i] = s->route_counter[i];
        obstacles[i] = s->route_obstacle[i];
    }
    Search *se = acquire();
    if (!se) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = -1;
    se->nt = tb->nt;
    se->capital = tb->capital;
    if (build_edges(se, tb, counters, obstacles, wild, nwild, caravan, obstacle_any,
                    boatmen, s->magnum_rafts, s->nebulae_rafts) < 0)
        goto declined;
    se->limit = s->hand_limit;
    se->needed_only = s->caravan_if_needed;
    int hand[NK], total = 0;
    for (int k = 0; k < NK; k++) {
        se->pref[k] = r->pref[k];
        hand[k] = s->hands[p][k];
        if (hand[k] < 0 || hand[k] > 63)
            goto declined;
        total += hand[k];
    }
    if (total > MAXCARDS || se->limit < 0 || se->limit > MAXCARDS)
        goto declined;
    orders(se);
    se->monotone = 1;
    for (int k = 0; k < NK; k++)
        if (CARD_VALUE + se->pref[k] < 0)
            se->monotone = 0;
    int64_t bonus[MAXT] = {0};
    int ready = setup(se, tb->dist, bonus, 0, target, total);
    if (ready == -2)
        goto done;
    if (ready < 0)
        goto declined;
    uint64_t visited = (uint64_t)s->visited[p];
    int town = s->boots[p];
    best(se, town, hand, 0, visited, -1, 0);
    if (se->failed)
        goto declined;
    int edge_of[MAXCARDS + 2], any_of[MAXCARDS + 2], town_of[MAXCARDS + 2];
    int len = walk(se, town, hand, visited, edge_of, any_of, town_of);
    if (len < 0)
        goto done;
    if (len > QR_MAXS)
        goto declined;
    Walked w;
    walked(se, town, hand, visited, len, edge_of, any_of, town_of, &w);
    for (int i = 0; i < len; i++) {
        const PEdge *pe = &se->edges[town_of[i]][edge_of[i]];
        const PMeta *pm = &se->meta[town_of[i]][edge_of[i]];
        out->route[i] = (int16_t)pm->route;
        out->kind[i] = (int8_t)(pm->wild ? pe->kind : -1);
    }
    out->nsteps = len;
    out->new_towns = w.new_towns;
    out->end = w.end;
    out->towns = w.towns;
    kept(se, w.left, w.owed, out->hand);
    out->usefulness = usefulness(se, out->hand);
    rc = 0;
    goto done;
declined:
    PyErr_SetString(PyExc_RuntimeError, "quick rollouts: a plan the compiled planner "
                    "declines");
done:
    release(se);
    return rc;
}

/* ``_Plans.wish``: player p's wish on s, through the memo.  0, or -1 (error set). */
static int
qr_wish_plan(QuickRollouts *r, const S *s, int p, QJourney *out)
{
    QKey key;
    memset(&key, 0, sizeof key);
    key.seen = (uint64_t)s->visited[p];
    key.p = (int8_t)p;
    key.boot = (int8_t)s->boots[p];
    key.card = (int8_t)s->town_cards[p];
    key.kinds = (int8_t)qr_held(s, p);
    for (int k = 0; k < NK; k++)
        key.hand[k] = (int8_t)s->hands[p][k];
    for (int i = 0; i < r->nroutes; i++) {
        key.counters[i] = (int8_t)s->route_counter[i];
        key.obstacles[i] = (int8_t)s->route_obstacle[i];
    }
    if (r->cap == 0 || (r->count + 1) * 2 > r->cap) {
        if (qr_grow(r) < 0)
            return -1;
    }
    size_t at = qr_hash(&key) & (r->cap - 1);
    while (r->memo[at].gen == r->gen) {
        if (!memcmp(&r->memo[at].key, &key, sizeof key)) {
            *out = r->memo[at].j;
            return 0;
        }
        at = (at + 1) & (r->cap - 1);
    }
    if (qr_plan(r, s, p, 1, out) < 0)
        return -1;
    QEntry *e = &r->memo[at];
    e->gen = r->gen;
    e->key = key;
    e->j = *out;
    r->count++;
    return 0;
}

/* ``still_best``: whether j, p's wish on the deal ``before``, is still its best on
 * ``after``, without planning again. */
static int
qr_still_best(const QuickRollouts *r, const QJourney *j, const S *before, const S *after,
              int p)
{
    if (memcmp(after->hands[p], before->hands[p], sizeof after->hands[p])
        || after->boots[p] != before->boots[p]
        || memcmp(after->counters_up[p], before->counters_up[p],
                  sizeof after->counters_up[p])
        || memcmp(after->counters_secret[p], before->counters_secret[p],
                  sizeof after->counters_secret[p]))
        return 0;
    int held = -1;
    for (int rt = 0; rt < r->nroutes; rt++) {
        int now = after->route_counter[rt], was = before->route_counter[rt];
        int ob = after->route_obstacle[rt], had = before->route_obstacle[rt];
        if (now == was && ob == had)
            continue;
        /* the kinds j's steps on this road assume (-1: a move on a laid counter) */
        int on = 0, only = 1, kind0 = 0;
        for (int i = 0; i < j->nsteps; i++) {
            if (j->route[i] != rt)
                continue;
            if (!on) {
                kind0 = j->kind[i];
                on = 1;
            }
            else if (j->kind[i] != kind0)
                only = 0;
        }
        if (on) {
            if (ob == had && was == NO_PIECE && only && kind0 == now)
                continue;
            return 0;
        }
        if (now == was)
            continue; /* an obstacle off j */
        if (was != NO_PIECE)
            return 0;
        if (held < 0)
            held = qr_held(before, p);
        if (now >= 0 && now < NCOUNTER && held >> now & 1)
            continue;
        int price = now >= 0 && now < NK ? r->tb->cost[now][r->terrain[rt]] : -1;
        if (price < 0 || before->hands[p][now] < price)
            continue;
        return 0;
    }
    return 1;
}

/* ``_Policy.wish``: the rollout's wish for p (the deal's, kept if ``still_best``).
 * NULL with the error set. */
static const QJourney *
qr_wish(QuickRollouts *r, const S *s, int p)
{
    if (r->rollout_have[p])
        return &r->rollout_wish[p];
    if (!r->deal_have[p]) {
        if (qr_wish_plan(r, &r->det, p, &r->deal_wish[p]) < 0)
            return NULL;
        r->deal_have[p] = 1;
    }
    if (qr_still_best(r, &r->deal_wish[p], &r->det, s, p))
        r->rollout_wish[p] = r->deal_wish[p];
    else if (qr_wish_plan(r, s, p, &r->rollout_wish[p]) < 0)
        return NULL;
    r->rollout_have[p] = 1;
    return &r->rollout_wish[p];
}

static int
qr_has(const int32_t *ids, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

static int
qr_check_state(QuickRollouts *r, PyObject *state)
{
    if (!PyObject_TypeCheck(state, r->api->core_type)) {
        PyErr_SetString(PyExc_TypeError, "quick rollouts: a compiled Elfenland state");
        return -1;
    }
    return 0;
}

/* A compiled state of a game ``reset`` accepted: 0, or -1 with the error set. */
static int
qr_check_ready(QuickRollouts *r, PyObject *state)
{
    if (qr_check_state(r, state) < 0)
        return -1;
    if (!r->ready) {
        PyErr_SetString(PyExc_RuntimeError, "quick rollouts: reset declined this game");
        return -1;
    }
    return 0;
}

/* A compiled state, a deal told: 0, or -1 with the error set. */
static int
qr_check_dealt(QuickRollouts *r, PyObject *state)
{
    if (qr_check_state(r, state) < 0)
        return -1;
    if (!r->have_det) {
        PyErr_SetString(PyExc_RuntimeError, "quick rollouts: no deal");
        return -1;
    }
    return 0;
}

/* A Python list of n ints. */
static PyObject *
qr_list(const int *ids, int n)
{
    PyObject *list = PyList_New(n);
    if (!list)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(ids[i]);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

static PyObject *
qr_reset(QuickRollouts *r, PyObject *state)
{
    if (qr_check_state(r, state) < 0)
        return NULL;
    const S *s = r->api->raw(state);
    int total = 0, ok = s->n >= 1 && s->n <= MAXP;
    for (int k = 0; k < NK; k++) {
        int cards = s->card_pile[k];
        for (int p = 0; ok && p < s->n; p++)
            cards += s->hands[p][k];
        if (cards > 63)
            ok = 0;
        total += cards;
    }
    r->ready = ok && total <= QR_MAXS && total <= MAXCARDS && s->hand_limit <= MAXCARDS;
    if (++r->gen == 0) { /* wrapped: no entry may look current */
        memset(r->memo, 0, r->cap * sizeof(QEntry));
        r->gen = 1;
    }
    r->count = 0;
    r->have_det = 0;
    r->nnodes = r->nedges = r->npath = r->roots = 0;
    return PyBool_FromLong(r->ready);
}

static PyObject *
qr_deal(QuickRollouts *r, PyObject *state)
{
    if (qr_check_ready(r, state) < 0)
        return NULL;
    r->det = *(const S *)r->api->raw(state);
    r->have_det = 1;
    memset(r->deal_have, 0, sizeof r->deal_have);
    memset(r->rollout_have, 0, sizeof r->rollout_have);
    Py_RETURN_NONE;
}

static PyObject *
qr_start(QuickRollouts *r, PyObject *Py_UNUSED(ignored))
{
    memset(r->rollout_have, 0, sizeof r->rollout_have);
    Py_RETURN_NONE;
}

/* advance(state, me, stop_at_me): the placement phase's turns by the policy, until the
 * phase ends or (stop_at_me) it is me's turn. */
static int
qr_advance_to(QuickRollouts *r, PyObject *state, int me, int stop_at_me)
{
    const EngineAPI *api = r->api;
    for (;;) {
        const S *s = api->raw(state);
        if (s->phase != P_PLACE || (stop_at_me && s->current == me))
            break;
        int n = api->legal_ids(state, r->legal, QR_LEGAL);
        if (n < 0)
            return -1;
        int chosen = -1;
        if (n == 1)
            chosen = r->legal[0];
        else {
            int p = s->current;
            if (p < 0 || p >= s->n) {
                PyErr_SetString(PyExc_RuntimeError, "quick rollouts: no player to place");
                return -1;
            }
            const QJourney *j = qr_wish(r, s, p);
            if (!j)
                return -1;
            for (int i = 0; i < j->nsteps && chosen < 0; i++) {
                if (j->kind[i] < 0 || j->kind[i] >= NCOUNTER)
                    continue;
                int id = r->place_id[j->route[i]][j->kind[i]];
                for (int a = 0; a < n; a++) {
                    if (r->legal[a] == id) {
                        chosen = id;
                        break;
                    }
                }
            }
            if (chosen < 0)
                chosen = r->pass_id;
        }
        int played = api->apply_id(state, chosen);
        if (played < 0)
            return -1;
        if (!played) {
            PyErr_Format(PyExc_RuntimeError, "quick rollouts: action %d not legal", chosen);
            return -1;
        }
    }
    return 0;
}

static PyObject *
qr_advance(QuickRollouts *r, PyObject *args)
{
    PyObject *state;
    int me, stop_at_me;
    if (!PyArg_ParseTuple(args, "Oip", &state, &me, &stop_at_me))
        return NULL;
    if (qr_check_dealt(r, state) < 0)
        return NULL;
    if (qr_advance_to(r, state, me, stop_at_me) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ``outlook``'s towns reached from start within budget links, of the mask todo. */
static int
qr_reached(const QuickRollouts *r, int start, uint64_t todo, long long budget)
{
    long long length;
    return outlook_walk(r->walk_dist, r->near, r->tb->nt, start, todo, budget, &length);
}

/* evaluate(state, me, exact, horizon, obstacle, cards, counter, scale) -> reward, or
 * -1.0 for a finished game. */
/* The evaluation's settings (``Scoring``'s ported fields). */
typedef struct {
    double exact, horizon, obstacle, cards, counter, scale;
} QScoring;

/* ``evaluate`` on s for me: *reward, 0; or -1 with the error set.  -1.0 in *reward for
 * a finished game. */
static int
qr_score(QuickRollouts *r, const S *s, int me, const QScoring *sc, double *reward_out)
{
    double exact = sc->exact, horizon = sc->horizon, obstacle = sc->obstacle;
    double cards = sc->cards, counter = sc->counter, scale = sc->scale;
    if (s->phase == P_OVER) {
        *reward_out = -1.0;
        return 0;
    }
    if (me < 0 || me >= s->n) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: no such player");
        return -1;
    }
    int nt = r->tb->nt, capital = r->tb->capital;
    int final = s->round >= s->rounds;
    double values[MAXP];
    long long keys[MAXP][3];
    int use_keys = final && exact != 0.0;
    QJourney j;
    for (int q = 0; q < s->n; q++) {
        if (qr_plan(r, s, q, 0, &j) < 0)
            return -1;
        int markers = __builtin_popcountl(s->visited[q]);
        int target = s->rule_town_cards && s->town_cards[q] != NO_PIECE
                     ? s->town_cards[q] : -1;
        long long distance = target >= 0 ? r->tb->dist[j.end * nt + target] : 0;
        int in_hand = 0;
        for (int k = 0; k < NK; k++)
            in_hand += j.hand[k];
        int kept_cards = in_hand < s->hand_limit ? in_hand : s->hand_limit;
        double v = (double)(markers + j.new_towns);
        if (final) {
            if (target >= 0)
                v -= (double)distance;
        }
        else {
            if (obstacle != 0.0 && s->obstacle_in_hand[q])
                v += obstacle;
            if (cards != 0.0)
                v += cards * kept_cards;
            if (counter != 0.0) {
                int held = 0;
                for (int k = 0; k < NCOUNTER; k++)
                    held += s->counters_up[q][k] + s->counters_secret[q][k];
                v += counter * (held < s->counters_kept ? held : s->counters_kept);
            }
        }
        if (horizon != 0.0 && !final) {
            uint64_t seen = (uint64_t)s->visited[q] | (uint64_t)1 << capital | j.towns;
            uint64_t all = nt == 64 ? ~(uint64_t)0 : (((uint64_t)1 << nt) - 1);
            uint64_t todo = all & ~seen & ~((uint64_t)1 << capital);
            int got = qr_reached(r, j.end, todo,
                                 (long long)(s->rounds - s->round) * QR_LINKS_PER_ROUND);
            v += horizon * got;
        }
        if (use_keys) {
            long long score = markers + j.new_towns, close = 0;
            if (s->rule_town_cards && target >= 0) {
                score -= distance;
                close = s->closest_breaks_ties ? -distance : 0;
            }
            keys[q][0] = score;
            keys[q][1] = close;
            keys[q][2] = kept_cards;
        }
        values[q] = v + (double)j.usefulness / 10000.0;
    }
    double rival = 0.0;
    int any = 0;
    for (int q = 0; q < s->n; q++) {
        if (q != me && (!any || values[q] > rival)) {
            rival = values[q];
            any = 1;
        }
    }
    double margin = (values[me] - rival) * 1.0;
    double reward = 1.0 / (1.0 + exp(-margin / scale * 4));
    if (use_keys) {
        int bestq = 0;
        for (int q = 1; q < s->n; q++) {
            if (keys[q][0] > keys[bestq][0]
                || (keys[q][0] == keys[bestq][0]
                    && (keys[q][1] > keys[bestq][1]
                        || (keys[q][1] == keys[bestq][1] && keys[q][2] > keys[bestq][2]))))
                bestq = q;
        }
        int count = 0, mine = 1;
        for (int q = 0; q < s->n; q++)
            if (!memcmp(keys[q], keys[bestq], sizeof keys[q]))
                count++;
        mine = !memcmp(keys[me], keys[bestq], sizeof keys[me]);
        double share = mine ? 1.0 / count : 0.0;
        reward = exact * share + (1.0 - exact) * reward;
    }
    *reward_out = reward;
    return 0;
}

static PyObject *
qr_evaluate(QuickRollouts *r, PyObject *args)
{
    PyObject *state;
    int me;
    QScoring sc;
    if (!PyArg_ParseTuple(args, "Oidddddd", &state, &me, &sc.exact, &sc.horizon,
                          &sc.obstacle, &sc.cards, &sc.counter, &sc.scale))
        return NULL;
    if (qr_check_state(r, state) < 0)
        return NULL;
    double reward;
    if (qr_score(r, r->api->raw(state), me, &sc, &reward) < 0)
        return NULL;
    return PyFloat_FromDouble(reward);
}

/* candidates(state) -> ``candidate_ids(state, plans.wish)``: the searcher's roots at
 * a turn of its rollouts' tree: up to three counters of its wish journey, pass, the
 * costliest counter it holds on an empty road beside a rival, the obstacle on a laid
 * road beside the rival with most town pieces; at most max_candidates, on ids. */
static int
qr_candidate_ids(QuickRollouts *r, PyObject *state, int out[8])
{
    const S *s = r->api->raw(state);
    int n = r->api->legal_ids(state, r->legal, QR_LEGAL);
    if (n < 0)
        return -1;
    int p = s->current;
    if (s->phase != P_PLACE || p < 0 || p >= s->n) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: candidates in the placement "
                        "phase only");
        return -1;
    }
    int nout = 0;
#define QR_LEGAL_HAS(id) qr_has(r->legal, n, (id))
#define QR_OUT_HAS(id) qr_has(out, nout, (id))
    QJourney j;
    if (qr_wish_plan(r, s, p, &j) < 0)
        return -1;
    for (int i = 0; i < j.nsteps; i++) {
        if (j.kind[i] < 0 || j.kind[i] >= NCOUNTER || nout >= 3)
            continue;
        int id = r->place_id[j.route[i]][j.kind[i]];
        if (QR_LEGAL_HAS(id) && !QR_OUT_HAS(id))
            out[nout++] = id;
    }
    if (QR_LEGAL_HAS(r->pass_id) && !QR_OUT_HAS(r->pass_id))
        out[nout++] = r->pass_id;
    int held = qr_held(s, p);
    int have_block = 0, have_blocker = 0;
    long long block_cost = 0, block_id = 0, blocker_most = 0, blocker_id = 0;
    for (int rt = 0; rt < r->nroutes; rt++) {
        int a = r->road_a[rt], b = r->road_b[rt];
        if (a < 0)
            continue;
        int beside = 0, most = -1;
        for (int q = 0; q < s->n; q++) {
            if (q != p && (s->boots[q] == a || s->boots[q] == b)) {
                beside = 1;
                int m = __builtin_popcountl(s->visited[q]);
                if (m > most)
                    most = m;
            }
        }
        if (!beside)
            continue;
        if (s->route_counter[rt] == NO_PIECE) {
            int best_c = 0, best_k = -1;
            for (int k = 0; k < NCOUNTER; k++) {
                if (!(held >> k & 1))
                    continue;
                int c = r->tb->cost[k][r->terrain[rt]];
                if (c > 0 && (best_k < 0 || c > best_c || (c == best_c && k > best_k))) {
                    best_c = c;
                    best_k = k;
                }
            }
            if (best_k >= 0) {
                long long id = r->place_id[rt][best_k];
                if (!have_block || -best_c < block_cost
                    || (-best_c == block_cost && id < block_id)) {
                    block_cost = -best_c;
                    block_id = id;
                    have_block = 1;
                }
            }
        }
        else if (s->obstacle_in_hand[p] && s->route_obstacle[rt] == NO_PIECE) {
            long long id = r->obstacle_id[rt];
            if (!have_blocker || -most < blocker_most
                || (-most == blocker_most && id < blocker_id)) {
                blocker_most = -most;
                blocker_id = id;
                have_blocker = 1;
            }
        }
    }
    if (have_block && QR_LEGAL_HAS((int)block_id) && !QR_OUT_HAS((int)block_id))
        out[nout++] = (int)block_id;
    if (have_blocker && QR_LEGAL_HAS((int)blocker_id) && !QR_OUT_HAS((int)blocker_id))
        out[nout++] = (int)blocker_id;
#undef QR_LEGAL_HAS
#undef QR_OUT_HAS
    if (nout > r->max_candidates)
        nout = r->max_candidates;
    return nout;
}

static PyObject *
qr_candidates(QuickRollouts *r, PyObject *state)
{
    if (qr_check_ready(r, state) < 0)
        return NULL;
    int out[8];
    int nout = qr_candidate_ids(r, state, out);
    if (nout < 0)
        return NULL;
    return qr_list(out, nout);
}

/* ------------------------------------------------------------ the searcher's tree */

/* Room for one more of an array's ``used`` items of ``size`` bytes (doubled from
 * ``first``): 0, or -1 with the error set. */
static int
qr_room(void **items, int *cap, int used, size_t size, int first)
{
    if (used < *cap)
        return 0;
    if (*cap > INT_MAX / 2) {
        PyErr_NoMemory();
        return -1;
    }
    int want = *cap ? *cap * 2 : first;
    void *fresh = realloc(*items, (size_t)want * size);
    if (!fresh) {
        PyErr_NoMemory();
        return -1;
    }
    *items = fresh;
    *cap = want;
    return 0;
}

/* A new node: its index, or -1 (error set). */
static int
qr_node(QuickRollouts *r)
{
    void *items = r->nodes;
    int rc = qr_room(&items, &r->node_cap, r->nnodes, sizeof(QNode), 1024);
    r->nodes = items;
    if (rc < 0)
        return -1;
    QNode *nd = &r->nodes[r->nnodes];
    nd->visits = 0;
    nd->total = 0.0;
    nd->first = -1;
    return r->nnodes++;
}

/* The edge of ``action`` at node ``at``, or -1 if it was never listed there. */
static int
qr_find_edge(const QuickRollouts *r, int at, int action)
{
    for (int e = r->nodes[at].first; e >= 0; e = r->edges[e].next)
        if (r->edges[e].action == action)
            return e;
    return -1;
}

/* The edge of ``action`` at node ``at``, made (never listed, no child) if missing: its
 * index, or -1 (error set). */
static int
qr_edge(QuickRollouts *r, int at, int action)
{
    int found = qr_find_edge(r, at, action);
    if (found >= 0)
        return found;
    void *items = r->edges;
    int rc = qr_room(&items, &r->edge_cap, r->nedges, sizeof(QEdge), 4096);
    r->edges = items;
    if (rc < 0)
        return -1;
    QEdge *ed = &r->edges[r->nedges];
    ed->action = action;
    ed->avail = 0;
    ed->child = -1;
    ed->next = r->nodes[at].first;
    r->nodes[at].first = r->nedges;
    return r->nedges++;
}

/* trees(n, exploration) -> [root ids]: a tree for each of this search's n roots. */
static PyObject *
qr_trees(QuickRollouts *r, PyObject *args)
{
    int n;
    double exploration;
    if (!PyArg_ParseTuple(args, "id", &n, &exploration))
        return NULL;
    if (n < 0 || n > 4096 || !(exploration >= 0.0) || !isfinite(exploration)) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: 0 to 4096 trees and an "
                        "exploration of 0 or more");
        return NULL;
    }
    r->exploration = exploration;
    r->nnodes = r->nedges = r->npath = r->roots = 0; /* the last search's trees go */
    int *ids = PyMem_Malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!ids)
        return PyErr_NoMemory();
    for (int i = 0; i < n; i++) {
        ids[i] = qr_node(r);
        if (ids[i] < 0) {
            PyMem_Free(ids);
            return NULL;
        }
    }
    r->roots = r->nnodes;
    PyObject *list = qr_list(ids, n);
    PyMem_Free(ids);
    return list;
}

/* The last rollout's nodes gain a visit and ``reward``. */
static void
qr_backup(QuickRollouts *r, double reward)
{
    for (int i = 0; i < r->npath; i++) {
        r->nodes[r->path[i]].visits += 1;
        r->nodes[r->path[i]].total += reward;
    }
    r->npath = 0;
}

static PyObject *
qr_backup_py(QuickRollouts *r, PyObject *arg)
{
    double reward = PyFloat_AsDouble(arg);
    if (reward == -1.0 && PyErr_Occurred())
        return NULL;
    qr_backup(r, reward);
    Py_RETURN_NONE;
}

/* rng.randrange(n), checked. */
static int
qr_randrange(PyObject *rng, int n)
{
    PyObject *got = PyObject_CallMethod(rng, "randrange", "i", n);
    if (!got)
        return -1;
    long k = PyLong_AsLong(got);
    Py_DECREF(got);
    if (k == -1 && PyErr_Occurred())
        return -1;
    if (k < 0 || k >= n) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: randrange out of range");
        return -1;
    }
    return (int)k;
}

/* rollout(state, me, first, tree, rng, exact, horizon, obstacle, cards, counter, scale)
 * -> reward: ``ElfenlandQuickBot._rollout`` on the compiled rollouts.  The root action
 * ``first``; then, from node ``tree`` (-1: no tree), the searcher's placements chosen in
 * its tree (a random untried candidate by ``rng.randrange``, one new node a rollout,
 * else UCB over the times each was listed) and the rivals' by the policy; then every
 * player's by the policy to the move phase; then the evaluation, added to the nodes
 * passed.  Where the rollout does not end in the move phase of its round, -1.0, and the
 * caller plays on, scores and calls ``backup(reward)``. */
static PyObject *
qr_rollout(QuickRollouts *r, PyObject *args)
{
    PyObject *state, *rng;
    int me, first, tree;
    QScoring sc;
    if (!PyArg_ParseTuple(args, "OiiiOdddddd", &state, &me, &first, &tree, &rng,
                          &sc.exact, &sc.horizon, &sc.obstacle, &sc.cards, &sc.counter,
                          &sc.scale))
        return NULL;
    if (qr_check_dealt(r, state) < 0)
        return NULL;
    if (tree < -1 || tree >= r->roots) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: no such tree");
        return NULL;
    }
    const EngineAPI *api = r->api;
    const S *s = api->raw(state);
    if (me < 0 || me >= s->n) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: no such player");
        return NULL;
    }
    memset(r->rollout_have, 0, sizeof r->rollout_have);
    r->npath = 0;
    int start_round = s->round;
    int played = api->apply_id(state, first);
    if (played < 0)
        return NULL;
    if (!played) {
        PyErr_Format(PyExc_ValueError, "quick rollouts: root %d not legal", first);
        return NULL;
    }
    int node = tree;
    if (node >= 0)
        r->path[r->npath++] = node;
    while (node >= 0) {
        s = api->raw(state);
        if (s->phase != P_PLACE || s->round != start_round)
            break;
        if (s->current != me) {
            if (qr_advance_to(r, state, me, 1) < 0)
                return NULL;
            continue;
        }
        if (r->npath > QR_DEPTH) {
            PyErr_SetString(PyExc_RuntimeError, "quick rollouts: a tree too deep");
            return NULL;
        }
        int acts[8], edge[8], untried[8], nuntried = 0;
        int nacts = qr_candidate_ids(r, state, acts);
        if (nacts < 0)
            return NULL;
        if (nacts == 0) {
            PyErr_SetString(PyExc_RuntimeError, "quick rollouts: no candidate");
            return NULL;
        }
        for (int i = 0; i < nacts; i++) {
            int e = qr_find_edge(r, node, acts[i]);
            if (e < 0 || r->edges[e].child < 0)
                untried[nuntried++] = i;
        }
        int k = nuntried ? qr_randrange(rng, nuntried) : 0; /* before the tree changes */
        if (k < 0)
            return NULL;
        for (int i = 0; i < nacts; i++) {
            edge[i] = qr_edge(r, node, acts[i]);
            if (edge[i] < 0)
                return NULL;
            r->edges[edge[i]].avail += 1;
        }
        int pick;
        if (nuntried) {
            pick = untried[k];
            int child = qr_node(r);
            if (child < 0)
                return NULL;
            r->edges[edge[pick]].child = child;
            node = -1; /* one new node a rollout: the policy plays on */
            r->path[r->npath++] = child;
        }
        else {
            pick = 0;
            double top = 0.0;
            for (int i = 0; i < nacts; i++) {
                const QEdge *ed = &r->edges[edge[i]];
                const QNode *ch = &r->nodes[ed->child];
                double value = INFINITY;
                if (ch->visits > 0) {
                    int avail = ed->avail > 1 ? ed->avail : 1;
                    double mean = ch->total / ch->visits;
                    value = mean + r->exploration * sqrt(log((double)avail)
                                                         / (double)ch->visits);
                }
                if (i == 0 || value > top) {
                    top = value;
                    pick = i;
                }
            }
            node = r->edges[edge[pick]].child;
            r->path[r->npath++] = node;
        }
        played = api->apply_id(state, acts[pick]);
        if (played < 0)
            return NULL;
        if (!played) {
            PyErr_Format(PyExc_RuntimeError, "quick rollouts: action %d not legal",
                         acts[pick]);
            return NULL;
        }
    }
    s = api->raw(state);
    if (s->phase == P_PLACE && s->round == start_round) {
        if (qr_advance_to(r, state, me, 0) < 0)
            return NULL;
        s = api->raw(state);
    }
    if (s->phase != P_MOVE || s->round != start_round)
        return PyFloat_FromDouble(-1.0); /* the caller plays on; ``backup`` */
    double reward;
    if (qr_score(r, s, me, &sc, &reward) < 0)
        return NULL;
    qr_backup(r, reward);
    return PyFloat_FromDouble(reward);
}

static int
qr_init(QuickRollouts *r, PyObject *args, PyObject *kwds)
{
    PyObject *tables, *api, *places, *pref, *obstacles, *ends;
    int pass_id, max_candidates;
    static char *names[] = {"tables", "engine_api", "place_ids", "pass_id", "preference",
                            "obstacle_ids", "road_ends", "max_candidates", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOiOOOi", names, &tables, &api, &places,
                                     &pass_id, &pref, &obstacles, &ends, &max_candidates))
        return -1;
    if (max_candidates < 1 || max_candidates > 8) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: 1 to 8 candidates");
        return -1;
    }
    const Tables *tb = PyCapsule_GetPointer(tables, TABLES_CAPSULE);
    if (!tb)
        return -1;
    const EngineAPI *ea = PyCapsule_GetPointer(api, ENGINE_API_CAPSULE);
    if (!ea)
        return -1;
    if (ea->version != ENGINE_API_VERSION || !ea->raw) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: another engine C entry version");
        return -1;
    }
    if (tb->nroutes > MAXR || tb->nt > MAXT) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: a board too big");
        return -1;
    }
    Py_ssize_t nr = PySequence_Size(places);
    if (nr < 0)
        return -1;
    if (nr < tb->nroutes || nr > MAXR || PySequence_Size(pref) != NK) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: a place id row a route and 7 "
                        "preferences");
        return -1;
    }
    int bad = 0;
    for (Py_ssize_t i = 0; i < nr; i++) {
        PyObject *row = PySequence_GetItem(places, i);
        if (!row)
            return -1;
        if (PySequence_Size(row) != NCOUNTER)
            bad = 1;
        for (int k = 0; !bad && k < NCOUNTER; k++)
            r->place_id[i][k] = (int)item_ll(row, k, &bad);
        Py_DECREF(row);
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "quick rollouts: place ids, 6 a route");
            return -1;
        }
    }
    for (int k = 0; k < NK; k++)
        r->pref[k] = item_ll(pref, k, &bad);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "quick rollouts: 7 preferences");
        return -1;
    }
    if (PySequence_Size(obstacles) != nr || PySequence_Size(ends) != nr) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "quick rollouts: an obstacle id and a road's "
                        "ends a route");
        return -1;
    }
    for (Py_ssize_t i = 0; i < nr; i++) {
        r->obstacle_id[i] = (int)item_ll(obstacles, i, &bad);
        PyObject *row = PySequence_GetItem(ends, i);
        if (!row)
            return -1;
        if (PySequence_Size(row) != 2)
            bad = 1;
        if (!bad) {
            r->road_a[i] = (int)item_ll(row, 0, &bad);
            r->road_b[i] = (int)item_ll(row, 1, &bad);
        }
        Py_DECREF(row);
        if (!bad && (r->road_a[i] < -1 || r->road_a[i] >= tb->nt || r->road_b[i] < -1
                     || r->road_b[i] >= tb->nt))
            bad = 1;
        if (bad) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "quick rollouts: obstacle ids and road ends "
                            "(two towns of the board, or -1)");
            return -1;
        }
    }
    r->max_candidates = max_candidates;
    int nt = tb->nt;
    for (int i = 0; i < MAXR; i++)
        r->terrain[i] = 0;
    for (int t = 0; t < nt; t++) {
        r->near[t] = 0;
        for (int i = 0; i < tb->nlinks[t]; i++)
            r->terrain[tb->links[t][i].route] = tb->links[t][i].terrain;
    }
    for (int i = 0; i < nt * nt; i++) {
        r->walk_dist[i] = (int)tb->dist[i];
        if (tb->dist[i] == 1)
            r->near[i / nt] |= (uint64_t)1 << (i % nt);
    }
    Py_INCREF(tables);
    Py_XSETREF(r->tables_obj, tables);
    Py_INCREF(api);
    Py_XSETREF(r->api_obj, api);
    r->tb = tb;
    r->api = ea;
    r->nroutes = (int)nr;
    r->pass_id = pass_id;
    r->ready = 0;
    r->have_det = 0;
    return 0;
}

static void
qr_dealloc(QuickRollouts *r)
{
    Py_XDECREF(r->tables_obj);
    Py_XDECREF(r->api_obj);
    free(r->memo);
    free(r->nodes);
    free(r->edges);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyMethodDef qr_methods[] = {
    {"reset", (PyCFunction)qr_reset, METH_O,
     "A new search on this state's game: the memo emptied; whether the game fits."},
    {"deal", (PyCFunction)qr_deal, METH_O,
     "A new deal (its position before the root action): its wishes forgotten."},
    {"start", (PyCFunction)qr_start, METH_NOARGS, "A new rollout of the deal."},
    {"candidates", (PyCFunction)qr_candidates, METH_O,
     "The searcher's roots at a turn of the rollouts' tree (``candidate_ids``)."},
    {"advance", (PyCFunction)qr_advance, METH_VARARGS,
     "advance(state, me, stop_at_me): the placement phase's turns by the policy."},
    {"trees", (PyCFunction)qr_trees, METH_VARARGS,
     "trees(n, exploration): a tree for each of this search's n roots, their ids."},
    {"rollout", (PyCFunction)qr_rollout, METH_VARARGS,
     "rollout(state, me, first, tree, rng, exact, horizon, obstacle, cards, counter, "
     "scale): a whole rollout and its reward (-1.0: play on, then ``backup``)."},
    {"backup", (PyCFunction)qr_backup_py, METH_O,
     "backup(reward): the last rollout's nodes gain a visit and the reward."},
    {"evaluate", (PyCFunction)qr_evaluate, METH_VARARGS,
     "evaluate(state, me, exact, horizon, obstacle, cards, counter, scale): the reward."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject QuickRolloutsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "elfenland.bots._planner.QuickRollouts",
    .tp_basicsize = sizeof(QuickRollouts),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The Elfenland quick level's rollouts (policy and evaluation), compiled.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)qr_init,
    .tp_dealloc = (destructor)qr_dealloc,
    .tp_methods = qr_methods,
};
