/* Move generation and order (moves.py), the weights tables it reads, and restarts' generator. */
#include <string.h>

#include "core.h"

MoveWeights W;
BeamWeights BW;

/* ---- move generation (moves.py) -------------------------------------------------------- */

static uint32_t mt_word(Rng *r) {
    uint32_t y;
    if (r->mti >= 624) {
        int k;
        for (k = 0; k < 624; k++) {
            y = (r->mt[k] & 0x80000000U) | (r->mt[(k + 1) % 624] & 0x7fffffffU);
            r->mt[k] = r->mt[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
        }
        r->mti = 0;
    }
    y = r->mt[r->mti++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

static double rng_next(Rng *r) {
    uint32_t a = mt_word(r) >> 5, b = mt_word(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}


static void add(MoveList *ml, double score, Move m) {
    if (ml->n < MAXMOVES) {
        ml->m[ml->n] = m;
        ml->score[ml->n] = score;
        ml->n++;
    }
}

typedef struct {
    int n;
    int c[2];
} Tops;

static int first_movable(const State *s, int a, const signed char *fu, int has_empty) {
    for (int i = s->down[a]; i < s->len[a]; i++) {
        int t = s->col[a][i];
        if (has_empty && t >> 2 == KING) return i;
        for (int k = 0; k < s->nparents[t]; k++) {
            int par = s->parents[t][k];
            if (fu[par] >= 0 && fu[par] != a) return i;
        }
    }
    return 1 << 30;
}

static int twin_at_hand(const State *s, int card, const signed char *fu) {
    int twin = card ^ 3;
    if (fu[twin] >= 0) return 1;
    for (int i = 0; i < s->tlen; i++)
        if (s->talon[i] == twin) return 1;
    return s->found[twin & 3] == (twin >> 2) + 1;
}

/* the twin-shuffle rule's conditions (1), (2), (4), (5) for moving c off u (moves.py's _twin_idle);
 * ``near``: the column tops and the talon cards a stock move reaches, one bit per card. */
static int twin_idle(const State *s, int c, int u, uint64_t playable, uint64_t tops, uint64_t near) {
    if ((playable >> u) & 1) return 0;
    for (int k = 0; k < s->nparents[u]; k++)
        if ((tops >> s->parents[u][k]) & 1) return 0;
    return !((s->kids[c] | (s->kids[u] & ~(1ULL << c))) & near);
}

void gen_moves(const State *s, MoveList *ml, Rng *rng) {
    ml->n = 0;
    uint64_t playable = 0;
    const int *found = s->found;
    if (s->two) {
        for (int i = 0; i < 8; i++)
            if (found[i] < 13) playable |= 1ULL << (found[i] * 4 + (i >> 1));
    } else {
        for (int su = 0; su < 4; su++)
            if (found[su] < 13) playable |= 1ULL << (found[su] * 4 + su);
    }
#define PLAYABLE(c) ((playable >> (c)) & 1)
    Tops tops[52];
    for (int c = 0; c < 52; c++) tops[c].n = 0;
    int empty = -1, nempty = 0;
    for (int i = 0; i < s->ncols; i++) {
        if (s->len[i]) {
            Tops *t = &tops[s->col[i][s->len[i] - 1]];
            if (t->n < 2) t->c[t->n++] = i;
        } else {
            nempty++;
            if (empty < 0) empty = i;
        }
    }
    int twin_rule = s->two && !s->runs && !s->klondike && nempty <= 1;
    uint64_t topbits = 0, nearbits = 0; /* twin shuffles need a use: computed on first need */
    int bits_done = 0;
    signed char fu[52];
    int fu_done = 0;
    for (int a = 0; a < s->ncols; a++) {
        int size = s->len[a];
        if (!size) continue;
        const unsigned char *col = s->col[a];
        int top = col[size - 1];
        if (PLAYABLE(top)) {
            long long bonus = (size == 1 || (s->klondike && s->down[a] == size - 1)) ? W.up_clears : 0;
            add(ml, W.up + bonus, (Move){T2F, (signed char)a, -1, 0, 1, -1, 0, 0});
        }
        int longest = 1;
        if (s->runs) {
            int lowest = s->down[a];
            while (size - longest - 1 >= lowest && s->builds[col[size - longest - 1] * 52 + col[size - longest]])
                longest++;
        }
        int reach = -1;
        for (int n = 1; n <= longest; n++) {
            int base = col[size - n];
            int rest = size - n;
            int dests[4], nd = 0;
            for (int k = 0; k < s->nparents[base]; k++) {
                const Tops *t = &tops[(int)s->parents[base][k]];
                for (int q = 0; q < t->n; q++)
                    if (t->c[q] != a) dests[nd++] = t->c[q];
            }
            int to_empty = empty >= 0 && rest && (!s->king_only || base >> 2 == KING);
            if (twin_rule && rest && s->builds[col[rest - 1] * 52 + base] && !bits_done) {
                for (int i = 0; i < s->ncols; i++)
                    if (s->len[i]) topbits |= 1ULL << s->col[i][s->len[i] - 1];
                nearbits = topbits;
                for (int j = s->passes != 0 ? 0 : (s->p > 0 ? s->p - 1 : 0); j < s->tlen; j++)
                    nearbits |= 1ULL << s->talon[j];
                bits_done = 1;
            }
            if (twin_rule && rest && s->builds[col[rest - 1] * 52 + base] &&
                twin_idle(s, base, col[rest - 1], playable, topbits, nearbits)) { /* twin shuffles need a use */
                if (nempty) {
                    to_empty = 0;
                } else {
                    int keep = 0;
                    for (int q = 0; q < nd; q++)
                        if (s->col[dests[q]][s->len[dests[q]] - 1] != col[rest - 1]) dests[keep++] = dests[q];
                    nd = keep;
                }
            }
            if (!nd && !to_empty) continue;
            if (s->klondike && rest > s->down[a] && longest == size - s->down[a]) {
                if (!fu_done) {
                    memset(fu, -1, sizeof fu);
                    for (int i = 0; i < s->ncols; i++)
                        for (int q = s->down[i]; q < s->len[i]; q++) fu[s->col[i][q]] = (signed char)i;
                    fu_done = 1;
                }
                if (reach < 0) reach = first_movable(s, a, fu, empty >= 0);
                if (!(rest > reach || PLAYABLE(col[rest - 1]) || twin_at_hand(s, base, fu))) continue;
            }
            long long score = W.move - W.per_card * n;
            if (rest == 0) {
                score += W.whole;
            } else {
                int under = col[rest - 1];
                if (s->klondike && s->down[a] == rest) {
                    score += W.turns + W.turns_per_card * rest;
                } else if (rest >= s->down[a]) {
                    if (s->builds[under * 52 + base]) score -= W.built;
                    if (PLAYABLE(under)) {
                        score += W.frees;
                    } else {
                        for (int k = 0; k < s->nparents[under]; k++) {
                            if (tops[(int)s->parents[under][k]].n) {
                                score += W.exposes;
                                break;
                            }
                        }
                    }
                    if (n == longest) score += W.whole_run;
                }
            }
            for (int q = 0; q < nd; q++)
                add(ml, score, (Move){T2T, (signed char)a, (signed char)dests[q], 0, (short)n, -1, 0, 0});
            if (to_empty) add(ml, score - W.to_empty, (Move){T2T, (signed char)a, (signed char)empty, 0, (short)n, -1, 0, 0});
        }
    }
    Route pos[MAXROUTES];
    int np = stock_routes(s, pos);
    int limited = s->passes >= 0;
    long long dc = rng->on && limited ? W.restart_draw : W.draw;
    int bury = rng->on && s->passes == 0;
    int buried[MAXTALON + 1];
    int buried_done = 0;
    int p = s->p, size = s->tlen;
    for (int q = 0; q < np; q++) {
        int j = pos[q].j, k1 = pos[q].k1, rd = pos[q].rd, k2 = pos[q].k2;
        int card = s->talon[j];
        long long cost = k1 + k2 + W.redeal * rd;
        long long up, build, fill;
        if (cost == 0) {
            up = W.waste_up, build = W.waste_build, fill = W.waste_fill;
        } else if (limited) {
            up = W.stock_up - dc * cost, build = W.stock_build - dc * cost, fill = W.stock_fill - dc * cost;
            if (bury) {
                if (!buried_done) {
                    int acc = 0;
                    buried[0] = 0;
                    for (int i = p; i < size; i++) {
                        int c = s->talon[i];
                        int gap = (c >> 2) - (s->two ? found[2 * (c & 3) + 1] : found[c & 3]);
                        if (gap < 3) acc += 3 - gap;
                        buried[i - p + 1] = acc;
                    }
                    buried_done = 1;
                }
                long long pen = W.bury * buried[j - p];
                up -= pen, build -= pen, fill -= pen;
            }
        } else {
            long long oc = W.open_draw * cost;
            up = W.open_up - oc, build = W.open_build - oc, fill = W.open_fill - oc;
        }
        if (PLAYABLE(card)) add(ml, up, (Move){W2F, -1, -1, (signed char)rd, 1, (short)j, (short)k1, (short)k2});
        for (int k = 0; k < s->nparents[card]; k++) {
            const Tops *t = &tops[(int)s->parents[card][k]];
            for (int r = 0; r < t->n; r++)
                add(ml, build, (Move){W2T, -1, (signed char)t->c[r], (signed char)rd, 1, (short)j, (short)k1, (short)k2});
        }
        if (empty >= 0 && (!s->king_only || card >> 2 == KING))
            add(ml, fill, (Move){W2T, -1, (signed char)empty, (signed char)rd, 1, (short)j, (short)k1, (short)k2});
    }
    if (s->klondike) {
        for (int su = 0; su < 4; su++) {
            if (found[su] && !klondike_safe(found, found[su] - 1, su)) {
                int card = (found[su] - 1) * 4 + su;
                for (int k = 0; k < s->nparents[card]; k++) {
                    const Tops *t = &tops[(int)s->parents[card][k]];
                    for (int r = 0; r < t->n; r++)
                        add(ml, W.down, (Move){F2T, (signed char)su, (signed char)t->c[r], 0, 1, -1, 0, 0});
                }
                if (empty >= 0 && card >> 2 == KING)
                    add(ml, W.king_down, (Move){F2T, (signed char)su, (signed char)empty, 0, 1, -1, 0, 0});
            }
        }
    }
#undef PLAYABLE
    if (rng->on)
        for (int i = 0; i < ml->n; i++) ml->score[i] += rng->noise * rng_next(rng);
    /* stable sort, best first (Python's sort(reverse=True) keeps equal scores in order) */
    for (int i = 1; i < ml->n; i++) {
        double sc = ml->score[i];
        Move mv = ml->m[i];
        int k = i - 1;
        while (k >= 0 && ml->score[k] < sc) {
            ml->score[k + 1] = ml->score[k];
            ml->m[k + 1] = ml->m[k];
            k--;
        }
        ml->score[k + 1] = sc;
        ml->m[k + 1] = mv;
    }
}
