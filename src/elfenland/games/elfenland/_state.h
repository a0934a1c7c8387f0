/* The compiled Elfenland engine's state, as plain C arrays: the one definition the
 * engine (_speedups.c) and the quick bot's compiled rollouts (bots/_quick_rollout.h,
 * through the engine's C entry ``raw``) both read.  Only the engine writes it. */
#ifndef ELFENLAND_STATE_H
#define ELFENLAND_STATE_H

#define MAXP 6
#define NCARD 7
#define NCOUNTER 6
#define MAXR 64

enum { P_DRAW_SECRET, P_DRAW_COUNTERS, P_PLACE, P_KEEP, P_MOVE, P_OVER, NPHASE };

typedef struct {
    /* rules */
    int deal_fresh, cards_per_deal, hand_limit, counters_kept, keep_after_placement,
        face_up_counters, counter_draws, magnum_rafts, nebulae_rafts, boatmen,
        special_victory_rule, rounds, caravan_cards, closest_breaks_ties, rule_town_cards,
        caravan_if_needed, victory_round3_only, final_keep;
    /* position */
    int n, round, phase, starting, current, step, passes, discarding;
    int hands[MAXP][NCARD], card_pile[NCARD], counter_pile[NCOUNTER], face_up[NCOUNTER];
    int counters_up[MAXP][NCOUNTER], counters_secret[MAXP][NCOUNTER];
    int kept_up[MAXP][NCOUNTER], kept_secret[MAXP][NCOUNTER];
    int route_counter[MAXR], route_obstacle[MAXR];
    int obstacle_in_hand[MAXP], boots[MAXP], town_cards[MAXP];
    long visited[MAXP];
    int has_result, nresult, result[MAXP];
    int special_victory, rng_shared;
    Py_ssize_t length;
} S;

#endif
