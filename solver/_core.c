/* The compiled search core: state, move generation, safe moves, transposition table and
 * the depth-first loop of ``search.py``, in C.
 *
 * Same semantics as the Python modules it mirrors (state.py, moves.py, safe.py, search.py):
 * the same moves, scored and ordered the same way (a stable sort, best first), the same
 * safe moves played without branching, the same canonical key (columns as a multiset,
 * foundations per suit as a multiset, the talon exactly, p and passes when they matter).
 * The proofs are in those modules; this file only restates the rules. Two differences,
 * both outside what a proof relies on (restarts' jitter is Python's own generator, run in C):
 *
 *  - The table stores 128-bit hashes of the canonical key instead of the key itself
 *    (Zobrist hashes per column, summed through a mixer so column order is forgotten).
 *    A false "seen" needs two distinct keys with equal 128-bit hashes: with N entries the
 *    chance is about N^2 / 2^129, below 10^-22 for 10^8 entries.
 *  - The table is bounded in bytes (``table_mb``) and never cleared. It is a set of buckets
 *    of 8 entries; the entries of the current path are pinned and never replaced (so the
 *    loop cannot cycle), and when a bucket is full the unpinned entry with the smallest
 *    subtree (nodes searched below it) is replaced. With room for every entered position,
 *    nothing is ever replaced, and the search is node for node the Python search.
 *
 * Only the orchestration stays in Python (core.py, api.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The engine's move kinds (engine/moves.py; DRAW and REDEAL only in the beam's lines). The
 * module exports them as KINDS, and core.py refuses a module whose kinds are not the engine's. */
enum { DRAW = 0, REDEAL = 1, W2T = 3, W2F = 4, T2F = 5, T2T = 6, F2T = 7 };
enum { ST_SOLVED = 0, ST_UNSOLVABLE = 1, ST_UNKNOWN = 2 };

#define KING 12
#define MAXCOLS 16
#define MAXCOL 128
#define MAXTALON 112
#define MAXMOVES 4096 /* more than any position can have: < 16 columns x 13 run lengths x 5 + 224 stock routes x 6 */
#define CHECK_EVERY 256
#define BUCKET 8

static const int RED[4] = {0, 1, 1, 0};

/* The move order's and the beam's weights: moves.py's Weights and beam.py's Weights, by name,
 * handed over once by ``init`` (core.py, when it loads the module); no numbers here. */
#define MOVE_WEIGHTS(X)                                                                                              \
    X(up) X(up_clears) X(move) X(per_card) X(whole) X(turns) X(turns_per_card) X(built) X(frees) X(exposes)         \
        X(whole_run) X(to_empty) X(waste_up) X(waste_build) X(waste_fill) X(stock_up) X(stock_build) X(stock_fill)  \
            X(draw) X(restart_draw) X(bury) X(redeal) X(open_up) X(open_build) X(open_fill) X(open_draw) X(down)    \
                X(king_down)
#define BEAM_WEIGHTS(X) X(up) X(inv) X(brk) X(waste_inv) X(waste) X(empty)
#define FIELD(name) long long name;
static struct { MOVE_WEIGHTS(FIELD) } W;
static struct { BEAM_WEIGHTS(FIELD) } BW;
#undef FIELD
static int weights_set = 0;
static const int OTHER_COLOUR[4][2] = {{1, 2}, {0, 3}, {0, 3}, {1, 2}};

typedef struct {
    signed char kind, a, b, rd;
    short n, j, k1, k2;
} Move;

typedef struct {
    short slot, flip, p, passes, card;
    uint64_t th0, th1;
} Hist;

/* Zobrist tables (fixed seed: the hashes are the same in every process). */
static uint64_t ZC[2][MAXCOL][52];
static uint64_t ZD[2][MAXCOL];
static uint64_t ZF[2][8][14];
static uint64_t ZT[2][MAXTALON][52];
static uint64_t ZS[2][MAXTALON][52]; /* a stock card, by its place counted from the talon's end */
static uint64_t ZTL[2][MAXTALON + 1];
static uint64_t ZP[2][MAXTALON + 1];
static uint64_t ZPASS[2][8];

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t mix_a(uint64_t z) {
    z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDULL;
    z = (z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53ULL;
    return z ^ (z >> 33);
}

static uint64_t mix_b(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void init_zobrist(void) {
    uint64_t x = 0x5EED5EED12345678ULL;
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < MAXCOL; i++)
            for (int c = 0; c < 52; c++) ZC[h][i][c] = splitmix(&x);
        for (int i = 0; i < MAXCOL; i++) ZD[h][i] = splitmix(&x);
        for (int i = 0; i < 8; i++)
            for (int c = 0; c < 14; c++) ZF[h][i][c] = splitmix(&x);
        for (int i = 0; i < MAXTALON; i++)
            for (int c = 0; c < 52; c++) ZT[h][i][c] = splitmix(&x);
        for (int i = 0; i <= MAXTALON; i++) ZTL[h][i] = splitmix(&x);
        for (int i = 0; i <= MAXTALON; i++) ZP[h][i] = splitmix(&x);
        for (int i = 0; i < 8; i++) ZPASS[h][i] = splitmix(&x);
    }
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < MAXTALON; i++)
            for (int c = 0; c < 52; c++) ZS[h][i][c] = splitmix(&x);
}

/* ---- state (state.py) ------------------------------------------------------------------ */

typedef struct {
    int two, klondike, draw, runs, king_only, suit_build, ncols, p_in_key, nfound;
    int passes, p, left, tlen;
    int len[MAXCOLS];
    int down[MAXCOLS];
    unsigned char col[MAXCOLS][MAXCOL];
    int found[8];
    unsigned char talon[MAXTALON];
    uint64_t ch[MAXCOLS][2];
    uint64_t th[2];
    unsigned char builds[52 * 52];
    signed char parents[52][2];
    int nparents[52];
    uint64_t kids[52];
} State;

static void col_push(State *s, int i, int card) {
    int n = s->len[i]++;
    s->col[i][n] = (unsigned char)card;
    s->ch[i][0] ^= ZC[0][n][card];
    s->ch[i][1] ^= ZC[1][n][card];
}

static int col_pop(State *s, int i) {
    int n = --s->len[i];
    int card = s->col[i][n];
    s->ch[i][0] ^= ZC[0][n][card];
    s->ch[i][1] ^= ZC[1][n][card];
    return card;
}

static void set_down(State *s, int i, int d) {
    s->ch[i][0] ^= ZD[0][s->down[i]] ^ ZD[0][d];
    s->ch[i][1] ^= ZD[1][s->down[i]] ^ ZD[1][d];
    s->down[i] = d;
}

/* The talon's hash. Where p is in the key, a waste card is hashed by its place from the
 * talon's start and a stock card by its place from the end, so that playing the waste's top,
 * drawing, or playing a card k draws away changes O(1 + k) terms (play, talon_drew) instead
 * of the whole talon; where p is not in the key, every card by its place. */
static void talon_rehash(State *s) {
    uint64_t a = ZTL[0][s->tlen], b = ZTL[1][s->tlen];
    int split = s->p_in_key ? s->p : s->tlen, last = s->tlen - 1;
    for (int i = 0; i < split; i++) {
        a ^= ZT[0][i][s->talon[i]];
        b ^= ZT[1][i][s->talon[i]];
    }
    for (int i = split; i < s->tlen; i++) {
        a ^= ZS[0][last - i][s->talon[i]];
        b ^= ZS[1][last - i][s->talon[i]];
    }
    if (s->p_in_key) {
        a ^= ZP[0][s->p] ^ ZPASS[0][s->passes + 1];
        b ^= ZP[1][s->p] ^ ZPASS[1][s->passes + 1];
    }
    s->th[0] = a;
    s->th[1] = b;
}

/* A build with -DCORE_CHECK_HASH checks every incremental talon hash against the whole one. */
static void check_talon_hash(State *s) {
#ifdef CORE_CHECK_HASH
    uint64_t t0 = s->th[0], t1 = s->th[1];
    talon_rehash(s);
    if (t0 != s->th[0] || t1 != s->th[1]) abort();
#else
    (void)s;
#endif
}

/* One card drawn (p in the key, p < tlen): the stock card at p becomes the waste's top. */
static void talon_drew(State *s) {
    int p = s->p, c = s->talon[p], from_end = s->tlen - 1 - p;
    for (int h = 0; h < 2; h++) s->th[h] ^= ZS[h][from_end][c] ^ ZT[h][p][c] ^ ZP[h][p] ^ ZP[h][p + 1];
    s->p = p + 1;
    check_talon_hash(s);
}

static void key_of(const State *s, uint64_t *lo, uint64_t *hi) {
    uint64_t a = 0, b = 0;
    for (int i = 0; i < s->ncols; i++) {
        a += mix_a(s->ch[i][0]);
        b += mix_b(s->ch[i][1]);
    }
    for (int i = 0; i < s->nfound; i++) {
        a ^= ZF[0][i][s->found[i]];
        b ^= ZF[1][i][s->found[i]];
    }
    a ^= s->th[0];
    b ^= s->th[1];
    *lo = a;
    *hi = b | 1; /* never zero: zero marks an empty table entry */
}

static int found_slot(const State *s, int card) {
    int r = card >> 2, su = card & 3;
    if (s->two) {
        int i = 2 * su;
        if (s->found[i] == r) return i;
        if (s->found[i + 1] == r) return i + 1;
        return -1;
    }
    return s->found[su] == r ? su : -1;
}

static void play(State *s, const Move *m, Hist *h) {
    switch (m->kind) {
    case T2F: {
        int a = m->a;
        int card = s->col[a][s->len[a] - 1];
        int slot = found_slot(s, card);
        col_pop(s, a);
        s->found[slot]++;
        s->left--;
        int flip = 0, d = s->down[a];
        if (d && s->len[a] == d) {
            set_down(s, a, d - 1);
            flip = 1;
        }
        h->slot = (short)slot;
        h->flip = (short)flip;
        break;
    }
    case T2T: {
        int a = m->a, b = m->b, n = m->n;
        int start = s->len[a] - n;
        for (int k = 0; k < n; k++) col_push(s, b, s->col[a][start + k]);
        for (int k = 0; k < n; k++) col_pop(s, a);
        int flip = 0, d = s->down[a];
        if (d && s->len[a] == d) {
            set_down(s, a, d - 1);
            flip = 1;
        }
        h->flip = (short)flip;
        break;
    }
    case W2F:
    case W2T: {
        int j = m->j;
        int card = s->talon[j];
        memmove(s->talon + j, s->talon + j + 1, (size_t)(s->tlen - j - 1));
        s->tlen--;
        int slot = -1;
        if (m->kind == W2F) {
            slot = found_slot(s, card);
            s->found[slot]++;
            s->left--;
        } else {
            col_push(s, m->b, card);
        }
        h->p = (short)s->p;
        h->passes = (short)s->passes;
        h->card = (short)card;
        h->slot = (short)slot;
        h->th0 = s->th[0];
        h->th1 = s->th[1];
        if (s->p_in_key && !m->rd && j >= s->p - 1) {
            /* the waste's top, or a card j - p + 1 draws away: the cards drawn past go from
             * the stock's places to the waste's (talon_rehash); the rest keep their places */
            int L = s->tlen + 1, p = s->p; /* the talon's size before the card left it */
            for (int hh = 0; hh < 2; hh++) {
                uint64_t t = s->th[hh] ^ ZTL[hh][L] ^ ZTL[hh][L - 1] ^ ZP[hh][p] ^ ZP[hh][j];
                if (j == p - 1) {
                    t ^= ZT[hh][j][card];
                } else {
                    for (int i = p; i < j; i++) t ^= ZS[hh][L - 1 - i][s->talon[i]] ^ ZT[hh][i][s->talon[i]];
                    t ^= ZS[hh][L - 1 - j][card];
                }
                s->th[hh] = t;
            }
            s->p = j;
        } else {
            s->p = j;
            if (m->rd && s->passes > 0) s->passes--;
            talon_rehash(s);
        }
        check_talon_hash(s);
        break;
    }
    default: { /* F2T */
        int su = m->a, b = m->b;
        s->found[su]--;
        s->left++;
        col_push(s, b, s->found[su] * 4 + su);
        break;
    }
    }
}

static void undo(State *s, const Move *m, const Hist *h) {
    switch (m->kind) {
    case T2F: {
        int a = m->a, slot = h->slot;
        if (h->flip) set_down(s, a, s->down[a] + 1);
        s->found[slot]--;
        s->left++;
        col_push(s, a, s->found[slot] * 4 + (s->two ? slot >> 1 : slot));
        break;
    }
    case T2T: {
        int a = m->a, b = m->b, n = m->n;
        if (h->flip) set_down(s, a, s->down[a] + 1);
        int start = s->len[b] - n;
        for (int k = 0; k < n; k++) col_push(s, a, s->col[b][start + k]);
        for (int k = 0; k < n; k++) col_pop(s, b);
        break;
    }
    case W2F:
    case W2T: {
        int j = m->j;
        if (m->kind == W2F) {
            s->found[h->slot]--;
            s->left++;
        } else {
            col_pop(s, m->b);
        }
        memmove(s->talon + j + 1, s->talon + j, (size_t)(s->tlen - j));
        s->talon[j] = (unsigned char)h->card;
        s->tlen++;
        s->p = h->p;
        s->passes = h->passes;
        s->th[0] = h->th0;
        s->th[1] = h->th1;
        break;
    }
    default: {
        int su = m->a, b = m->b;
        col_pop(s, b);
        s->found[su]++;
        s->left--;
        break;
    }
    }
}

/* ---- safe moves (safe.py) -------------------------------------------------------------- */

static int klondike_safe(const int *f, int r, int su) {
    int t = OTHER_COLOUR[su][0], u = OTHER_COLOUR[su][1];
    return f[t] >= r && f[u] >= r && f[3 - su] >= r - 1;
}

static int is_safe_two(const State *s, int card) {
    int r = card >> 2, su = card & 3;
    const int *f = s->found;
    if (r == 0) return 1;
    if (s->suit_build) return f[2 * su + 1] == r;
    if (f[2 * su + 1] != r) return 0;
    int t = OTHER_COLOUR[su][0], u = OTHER_COLOUR[su][1];
    return f[2 * t + 1] >= r && f[2 * u + 1] >= r;
}

/* A bit per card that is_safe accepts (safe_cards). */
static uint64_t safe_mask(const State *s) {
    uint64_t mask = 0;
    const int *f = s->found;
    for (int su = 0; su < 4; su++) {
        if (s->two) {
            int r = f[2 * su + 1];
            if (r < 13 && (s->suit_build || is_safe_two(s, r * 4 + su))) mask |= 1ULL << (r * 4 + su);
        } else {
            int r = f[su];
            if (r < 13 && klondike_safe(f, r, su)) mask |= 1ULL << (r * 4 + su);
        }
    }
    return mask;
}

/* Every talon card a stock move can bring to the waste's top, cheapest route only, in the
 * order moves.py's stock_positions gives them: (talon index, draws, redeal, draws after it). */
typedef struct {
    int j, k1, rd, k2;
} Route;

#define MAXROUTES (2 * MAXTALON + 4)

static int stock_routes(const State *s, Route *out) {
    int p = s->p, size = s->tlen, draw = s->draw, n = 0;
#define ROUTE(J, K1, RD, K2) (out[n++] = (Route){(J), (K1), (RD), (K2)})
    if (p) ROUTE(p - 1, 0, 0, 0);
    if (draw == 1) {
        for (int j = p; j < size; j++) ROUTE(j, j - p + 1, 0, 0);
        if (s->passes != 0)
            for (int j = 0; j < p - 1; j++) ROUTE(j, size - p, 1, j + 1);
        return n;
    }
    unsigned char seen[MAXTALON + 1];
    memset(seen, 0, sizeof seen);
    if (p) seen[p - 1] = 1;
    int k = 1;
    while (p + draw * (k - 1) < size) {
        int j = (p + draw * k < size ? p + draw * k : size) - 1;
        ROUTE(j, k, 0, 0);
        seen[j] = 1;
        k++;
    }
    if (s->passes != 0 && size) {
        int to_end = k - 1;
        k = 1;
        while (draw * (k - 1) < size) {
            int j = (draw * k < size ? draw * k : size) - 1;
            if (!seen[j]) ROUTE(j, to_end, 1, k);
            k++;
        }
    }
#undef ROUTE
    return n;
}

static int safe_move(const State *s, Move *m) {
    uint64_t cards = safe_mask(s);
    if (!cards) return 0;
    for (int i = 0; i < s->ncols; i++) {
        if (s->len[i] && (cards >> s->col[i][s->len[i] - 1] & 1)) {
            *m = (Move){T2F, (signed char)i, -1, 0, 1, -1, 0, 0};
            return 1;
        }
    }
    if (s->p && s->draw == 1 && (cards >> s->talon[s->p - 1] & 1)) {
        *m = (Move){W2F, -1, -1, 0, 1, (short)(s->p - 1), 0, 0};
        return 1;
    }
    if (s->klondike && s->draw == 1 && s->passes < 0) { /* Corollary S (safe.py) */
        Route r[MAXROUTES];
        int n = stock_routes(s, r);
        for (int q = 0; q < n; q++)
            if (cards >> s->talon[r[q].j] & 1) {
                *m = (Move){W2F, -1, -1, (signed char)r[q].rd, 1, (short)r[q].j, (short)r[q].k1, (short)r[q].k2};
                return 1;
            }
    }
    return 0;
}

/* ---- cards that can never leave their places (dead.py, Lemma D) ----------------------- */

#define WASTE_PLACE MAXCOLS /* the waste's place index (dead.py's WASTE) */

typedef struct {
    short pl, j;
    unsigned char card;
} Member;

/* Mirrors dead.lost: true when the largest set of cards that can only leave their places by
 * themselves and break none of (F), (P), (E) is not empty. */
static int lost(const State *s) {
    int wn[52];
    short wpl[52][2], wj[52][2];
    int freec[52];
    static __thread Member mem[2][MAXCOLS * MAXCOL + MAXTALON];
    static __thread unsigned char ins[MAXCOLS + 1][MAXCOL];
    int nm = 0, cur = 0;
    memset(wn, 0, sizeof wn);
    memset(freec, 0, sizeof freec);
    for (int i = 0; i < s->ncols; i++) {
        int limit = s->klondike ? s->down[i] : s->len[i] - 1;
        for (int j = 0; j < s->len[i]; j++) {
            int card = s->col[i][j];
            if (wn[card] < 2) {
                wpl[card][wn[card]] = (short)i;
                wj[card][wn[card]] = (short)j;
            }
            wn[card]++;
            if (j > limit) continue;
            if (s->runs && !s->klondike && j && s->builds[s->col[i][j - 1] * 52 + card]) continue;
            mem[0][nm++] = (Member){(short)i, (short)j, (unsigned char)card};
        }
    }
    int waste_place = s->passes == 0;
    for (int j = 0; j < s->tlen; j++) {
        int card = s->talon[j];
        if (waste_place && j < s->p) {
            if (wn[card] < 2) {
                wpl[card][wn[card]] = WASTE_PLACE;
                wj[card][wn[card]] = (short)j;
            }
            wn[card]++;
            mem[0][nm++] = (Member){WASTE_PLACE, (short)j, (unsigned char)card};
        } else {
            freec[card]++;
        }
    }
    if (!nm) return 0;
    for (int k = 0; k < nm; k++) ins[mem[0][k].pl][mem[0][k].j] = 1;
    int copies = s->two ? 2 : 1;
    int result = 0;
    for (;;) {
        const Member *m = mem[cur];
        int top[MAXCOLS + 1];
        for (int i = 0; i <= MAXCOLS; i++) top[i] = -1;
        for (int k = 0; k < nm; k++)
            if (top[m[k].pl] < m[k].j) top[m[k].pl] = m[k].j;
        int cols_with = 0;
        for (int i = 0; i < s->ncols; i++) cols_with += top[i] >= 0;
        int every_column = cols_with == s->ncols;
        Member *keep = mem[1 - cur];
        int nk = 0;
        for (int k = 0; k < nm; k++) {
            int pl = m[k].pl, j = m[k].j, card = m[k].card;
            int r = card >> 2, su = card & 3;
            if (!every_column && (!s->king_only || r == KING)) continue; /* (E) */
            /* (F) */
            int lo;
            if (s->two) {
                int f1 = s->found[2 * su], f2 = s->found[2 * su + 1];
                lo = f1 <= r ? f1 : f2;
            } else {
                lo = s->found[su];
            }
            int fblocked = 0;
            for (int q = lo; q < r && !fblocked; q++) {
                int c = q * 4 + su;
                if (freec[c]) continue;
                int all = 1;
                for (int w = 0; w < wn[c] && w < 2; w++) {
                    int pl2 = wpl[c][w], j2 = wj[c][w];
                    if (!((pl2 == pl && j2 < j) || ins[pl2][j2])) {
                        all = 0;
                        break;
                    }
                }
                if (all) fblocked = 1;
            }
            if (!fblocked) continue;
            /* (P) */
            if (r != KING) {
                int pblocked = 1;
                for (int q = 0; q < s->nparents[card] && pblocked; q++) {
                    int par = s->parents[card][q];
                    if (freec[par]) {
                        pblocked = 0;
                        break;
                    }
                    if (s->klondike && wn[par] < copies) {
                        pblocked = 0;
                        break;
                    }
                    for (int w = 0; w < wn[par] && w < 2; w++) {
                        int pl2 = wpl[par][w], j2 = wj[par][w];
                        if (!((pl2 == pl && j2 < j) || j2 < top[pl2])) {
                            pblocked = 0;
                            break;
                        }
                    }
                }
                if (!pblocked) continue;
            }
            keep[nk++] = m[k];
        }
        if (nk == nm || !nk) {
            result = nk > 0;
            break;
        }
        for (int k = 0; k < nm; k++) ins[m[k].pl][m[k].j] = 0;
        for (int k = 0; k < nk; k++) ins[keep[k].pl][keep[k].j] = 1;
        nm = nk;
        cur = 1 - cur;
    }
    for (int k = 0; k < nm; k++) ins[mem[cur][k].pl][mem[cur][k].j] = 0;
    return result;
}

/* ---- move generation (moves.py) -------------------------------------------------------- */

/* Restarts' jitter: Python's own generator (MT19937, the state ``random.Random.getstate``
 * gives) and ``random()``'s two-word double, so a restart draws the very numbers the Python
 * search would and tries the same moves in the same order. */
typedef struct {
    uint32_t mt[624];
    int mti;
    int on;
    double noise;
} Rng;

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

typedef struct {
    Move m[MAXMOVES];
    double score[MAXMOVES];
    int n;
} MoveList;

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

/* Lemma T's conditions (1), (2), (4), (5) for moving c off u (moves.py's _twin_idle);
 * ``near``: the column tops and the talon cards a stock move reaches, one bit per card. */
static int twin_idle(const State *s, int c, int u, uint64_t playable, uint64_t tops, uint64_t near) {
    if ((playable >> u) & 1) return 0;
    for (int k = 0; k < s->nparents[u]; k++)
        if ((tops >> s->parents[u][k]) & 1) return 0;
    return !((s->kids[c] | (s->kids[u] & ~(1ULL << c))) & near);
}

static void gen_moves(const State *s, MoveList *ml, Rng *rng) {
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
    uint64_t topbits = 0, nearbits = 0; /* Lemma T: computed on first need */
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
                twin_idle(s, base, col[rest - 1], playable, topbits, nearbits)) { /* Lemma T */
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

/* ---- transposition table ------------------------------------------------------------- */

typedef struct {
    uint64_t lo, hi;
    uint32_t work; /* nodes searched below the entry (when it left the path) */
    uint32_t pin;  /* on the current path: never replaced */
} Entry;

typedef struct {
    Entry *e;
    size_t mask; /* buckets - 1 */
    Entry *over; /* path entries that found their bucket full of path entries (never seen) */
    size_t nover, capover;
    long long replaced, stored;
} Table;

static int table_init(Table *t, size_t buckets) {
    memset(t, 0, sizeof *t);
    t->e = calloc(buckets * BUCKET, sizeof(Entry));
    if (!t->e) return -1;
    t->mask = buckets - 1;
    return 0;
}

static void table_free(Table *t) {
    free(t->e);
    free(t->over);
}

static int table_has(const Table *t, uint64_t lo, uint64_t hi) {
    const Entry *b = t->e + (lo & t->mask) * BUCKET;
    for (int i = 0; i < BUCKET; i++)
        if (b[i].lo == lo && b[i].hi == hi) return 1;
    for (size_t i = 0; i < t->nover; i++)
        if (t->over[i].lo == lo && t->over[i].hi == hi) return 1;
    return 0;
}

/* Insert, pinned. Returns the entry's index, or -1 - k for overflow slot k, -2^62 on no memory. */
static long long table_put(Table *t, uint64_t lo, uint64_t hi) {
    size_t base = (lo & t->mask) * BUCKET;
    Entry *b = t->e + base;
    int victim = -1;
    for (int i = 0; i < BUCKET; i++) {
        if (!b[i].hi) {
            victim = i;
            break;
        }
        if (!b[i].pin && (victim < 0 || b[i].work < b[victim].work)) victim = i;
    }
    if (victim >= 0) {
        if (b[victim].hi)
            t->replaced++;
        else
            t->stored++;
        b[victim] = (Entry){lo, hi, 0, 1};
        return (long long)(base + victim);
    }
    if (t->nover == t->capover) {
        size_t cap = t->capover ? 2 * t->capover : 16;
        Entry *n = realloc(t->over, cap * sizeof(Entry));
        if (!n) return -(1LL << 62);
        t->over = n;
        t->capover = cap;
    }
    t->over[t->nover++] = (Entry){lo, hi, 0, 1};
    return -1 - (long long)(t->nover - 1);
}

static void table_unpin(Table *t, long long slot, long long work) {
    if (slot >= 0) {
        t->e[slot].pin = 0;
        t->e[slot].work = work > 0xFFFFFFFFLL ? 0xFFFFFFFFu : (uint32_t)work;
    } else {
        t->nover--; /* path order: the last overflow entry is this frame's */
    }
}

/* ---- the search loop (search.py) ------------------------------------------------------- */

typedef struct {
    int mstart, nmoves, next, safe;
    long long slot, nodes0;
} Frame;

typedef struct {
    void *p;
    size_t n, cap, size;
} Vec;

static void *vec_push(Vec *v) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 256;
        void *q = realloc(v->p, cap * v->size);
        if (!q) return NULL;
        v->p = q;
        v->cap = cap;
    }
    return (char *)v->p + v->size * v->n++;
}

static int vec_reserve(Vec *v, size_t extra) {
    while (v->n + extra > v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 256;
        void *q = realloc(v->p, cap * v->size);
        if (!q) return -1;
        v->p = q;
        v->cap = cap;
    }
    return 0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    State *s;
    Table table;
    Vec path, hist, frames, moves, best;
    MoveList ml;
    Rng rng;
    int keep_best, best_left, nomem;
    long long nodes;
} Search;

#define PATH(S) ((Move *)(S)->path.p)
#define HIST(S) ((Hist *)(S)->hist.p)
#define FRAMES(S) ((Frame *)(S)->frames.p)
#define MOVES(S) ((Move *)(S)->moves.p)

static int push_move(Search *S, const Move *m) {
    Move *pm = vec_push(&S->path);
    Hist *h = vec_push(&S->hist);
    if (!pm || !h) {
        S->nomem = 1;
        return -1;
    }
    *pm = *m;
    play(S->s, m, h);
    return 0;
}

static void pop_move(Search *S) {
    S->path.n--;
    S->hist.n--;
    undo(S->s, &PATH(S)[S->path.n], &HIST(S)[S->hist.n]);
}

/* Play the safe moves there are; how many, or -1: no memory. */
static int play_safe(Search *S) {
    int safe = 0;
    Move m;
    while (safe_move(S->s, &m)) {
        if (push_move(S, &m) < 0) return -1;
        safe++;
    }
    return safe;
}

/* Open a frame over the first ``n`` moves of ``S->ml``. 2: opened, -1: no memory. */
static int open_frame(Search *S, int n, int safe, long long slot) {
    if (vec_reserve(&S->moves, (size_t)n) < 0) {
        S->nomem = 1;
        return -1;
    }
    Frame *f = vec_push(&S->frames);
    if (!f) {
        S->nomem = 1;
        return -1;
    }
    f->mstart = (int)S->moves.n;
    f->nmoves = n;
    f->next = 0;
    f->safe = safe;
    f->slot = slot;
    f->nodes0 = S->nodes;
    memcpy(MOVES(S) + S->moves.n, S->ml.m, (size_t)n * sizeof(Move));
    S->moves.n += (size_t)n;
    return 2;
}

/* Play safe moves, then open a frame. 1: won, 0: pruned (undone), 2: opened, -1: no memory. */
static int enter(Search *S) {
    State *s = S->s;
    int safe = play_safe(S);
    if (safe < 0) return -1;
    if (s->left < S->best_left) {
        S->best_left = s->left;
        if (S->keep_best) {
            S->best.n = 0;
            if (vec_reserve(&S->best, S->path.n) < 0) {
                S->nomem = 1;
                return -1;
            }
            memcpy(S->best.p, S->path.p, S->path.n * sizeof(Move));
            S->best.n = S->path.n;
        }
    }
    if (s->left == 0) return 1;
    uint64_t lo, hi;
    key_of(s, &lo, &hi);
    if (table_has(&S->table, lo, hi)) {
        for (int i = 0; i < safe; i++) pop_move(S);
        return 0;
    }
    long long slot = table_put(&S->table, lo, hi);
    if (slot == -(1LL << 62)) {
        S->nomem = 1;
        return -1;
    }
    gen_moves(s, &S->ml, &S->rng);
    return open_frame(S, S->ml.n, safe, slot);
}


/* ---- the stock-step beam (beam.py) ------------------------------------------------------ */

/* Only the beam's lines hold DRAW and REDEAL steps. Lines leave the core in K+ form
 * (``kplus``): the steps fold into the next talon move. */

typedef struct {
    long long score, seq;
    int left, step; /* the position's cards off the foundations, and its next step (next_step) */
    Move *line;
    size_t n, cap;
} Cand;

typedef struct {
    Cand *c;
    int n, width;
    long long seq;
} Heap;


/* The beam's table: the positions entered in the current level, open addressing, cleared by
 * bumping ``gen``; sized at least twice a level's positions, so it never fills. */
typedef struct {
    uint64_t lo, hi;
    uint64_t gen;
} Seen;

typedef struct {
    Seen *e;
    size_t mask;
    uint64_t gen;
} SeenSet;

/* 1: ``(lo, hi)`` was entered this level; else it is added and 0 returned. */
static int seen_put(SeenSet *t, uint64_t lo, uint64_t hi) {
    for (size_t i = (size_t)(lo ^ (hi >> 17)) & t->mask;; i = (i + 1) & t->mask) {
        Seen *e = &t->e[i];
        if (e->gen != t->gen) {
            *e = (Seen){lo, hi, t->gen};
            return 0;
        }
        if (e->lo == lo && e->hi == hi) return 1;
    }
}

/* beam.py's score: cards off the foundations first, then what blocks them. A card's
 * inversions (cards of its suit and a lower rank under it in its column, or in the waste) are
 * counted with two rank masks a suit (a first and a second copy), so a card costs O(1). */
static unsigned char POP13[1 << 13]; /* bits set in a 13-bit rank mask (no popcnt instruction assumed) */

static inline int lower_seen(uint32_t *m1, uint32_t *m2, int c) {
    int su = c & 3, r = c >> 2;
    uint32_t below = (1u << r) - 1;
    int n = POP13[m1[su] & below] + POP13[m2[su] & below];
    if (m1[su] >> r & 1)
        m2[su] |= 1u << r;
    else
        m1[su] |= 1u << r;
    return n;
}

static long long beam_score(const State *s) {
    long long inv = 0, brk = 0, winv = 0, empty = 0;
    uint32_t m1[4], m2[4];
    for (int i = 0; i < s->ncols; i++) {
        const unsigned char *col = s->col[i];
        int n = s->len[i];
        if (!n) empty++;
        memset(m1, 0, sizeof m1);
        memset(m2, 0, sizeof m2);
        for (int k = 0; k < n; k++) {
            int c = col[k];
            if (k && !s->builds[col[k - 1] * 52 + c]) brk++;
            inv += lower_seen(m1, m2, c);
        }
    }
    memset(m1, 0, sizeof m1);
    memset(m2, 0, sizeof m2);
    for (int k = 0; k < s->p; k++) winv += lower_seen(m1, m2, s->talon[k]);
    return -BW.up * s->left - BW.inv * inv - BW.brk * brk - BW.waste_inv * winv - BW.waste * s->p + BW.empty * empty;
}

/* ``a`` ranks below ``b``: a lower score, or the same score found later. */
static int cand_worse(const Cand *a, const Cand *b) { return a->score < b->score || (a->score == b->score && a->seq > b->seq); }

static void heap_sift(Heap *h, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && cand_worse(&h->c[l], &h->c[m])) m = l;
        if (r < h->n && cand_worse(&h->c[r], &h->c[m])) m = r;
        if (m == i) return;
        Cand t = h->c[i];
        h->c[i] = h->c[m];
        h->c[m] = t;
        i = m;
    }
}

/* A position's next step in the beam: 0 a draw, 1 the redeal, -1 none (the stock dry, no
 * redeal left). */
static int next_step(const State *s) { return s->p < s->tlen ? 0 : (s->passes > 0 && s->tlen ? 1 : -1); }

/* Offer the position ``s`` (``base`` + ``path`` leads to it); kept when it is among the
 * ``width`` best. */
static int heap_offer(Heap *h, const State *s, const Move *base, size_t nb, const Move *path, size_t np) {
    long long score = beam_score(s), seq = h->seq++;
    Cand *c;
    if (h->n < h->width) {
        c = &h->c[h->n++];
    } else {
        Cand probe = {score, seq, 0, 0, NULL, 0, 0};
        if (!cand_worse(&h->c[0], &probe)) return 0;
        c = &h->c[0];
    }
    if (c->cap < nb + np + 1) {
        size_t cap = (nb + np + 1) * 2;
        Move *q = realloc(c->line, cap * sizeof(Move));
        if (!q) return -1;
        c->line = q;
        c->cap = cap;
    }
    memcpy(c->line, base, nb * sizeof(Move));
    memcpy(c->line + nb, path, np * sizeof(Move));
    c->n = nb + np;
    c->score = score;
    c->seq = seq;
    c->left = s->left;
    c->step = next_step(s);
    if (c == &h->c[0]) {
        heap_sift(h, 0);
    } else { /* sift up */
        int i = (int)(c - h->c);
        while (i && cand_worse(&h->c[i], &h->c[(i - 1) / 2])) {
            Cand t = h->c[i];
            h->c[i] = h->c[(i - 1) / 2];
            h->c[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    }
    return 1;
}

static int cand_order(const void *a, const void *b) { /* best first */
    const Cand *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void play_line(State *s, const Move *line, size_t n) {
    Hist h;
    for (size_t i = 0; i < n; i++) {
        if (line[i].kind == DRAW) {
            talon_drew(s);
        } else if (line[i].kind == REDEAL) { /* Forty and Eight */
            s->p = 0;
            s->passes--;
            talon_rehash(s);
        } else {
            play(s, &line[i], &h);
        }
    }
}

/* A line with DRAW moves in the K+ form of every other line: each talon move takes the draws
 * (and the redeal, and the draws after it) since the last one; trailing ones are left out. */
static size_t kplus(const Move *line, size_t n, Move *out) {
    size_t k = 0;
    int before = 0, redeal = 0, after = 0;
    for (size_t i = 0; i < n; i++) {
        Move m = line[i];
        if (m.kind == DRAW || m.kind == REDEAL) {
            if (m.kind == REDEAL)
                redeal = 1;
            else if (redeal)
                after++;
            else
                before++;
            continue;
        }
        if (m.kind == W2F || m.kind == W2T) {
            m.k1 = (short)before;
            m.rd = (signed char)redeal;
            m.k2 = (short)after;
            before = redeal = after = 0;
        }
        out[k++] = m;
    }
    return k;
}

/* Enter a closure position (safe moves first). 1: won, 0: seen this level (undone), 2: opened. */
static int beam_enter(Search *S, SeenSet *seen, Heap *h, const Move *base, size_t nb) {
    State *s = S->s;
    int safe = play_safe(S);
    if (safe < 0) return -1;
    if (s->left == 0) return 1;
    uint64_t lo, hi;
    key_of(s, &lo, &hi);
    if (seen_put(seen, lo, hi)) {
        for (int i = 0; i < safe; i++) pop_move(S);
        return 0;
    }
    if (heap_offer(h, s, base, nb, PATH(S), S->path.n) < 0) {
        S->nomem = 1;
        return -1;
    }
    gen_moves(s, &S->ml, &S->rng);
    int n = 0;
    for (int i = 0; i < S->ml.n; i++) { /* nothing drawn: the waste's top or no talon card */
        Move *q = &S->ml.m[i];
        if ((q->kind == W2F || q->kind == W2T) && (q->k1 || q->rd)) continue;
        S->ml.m[n++] = *q;
    }
    return open_frame(S, n, safe, 0);
}

/* The positions reachable from the state without a draw, depth first, at most ``cap`` moves:
 * each offered to the level's heap. 1: won (the line is base + S->path), 0: done, 2: out of
 * budget, -1: no memory. */
static int beam_closure(Search *S, SeenSet *seen, Heap *h, const Move *base, size_t nb, long long cap,
                        long long node_cap, double deadline) {
    long long stop = S->nodes + cap;
    int r = beam_enter(S, seen, h, base, nb);
    if (r != 2) return r == 0 ? 0 : r;
    while (S->frames.n) {
        Frame *f = &FRAMES(S)[S->frames.n - 1];
        if (f->next < f->nmoves && S->nodes < stop) {
            Move m = MOVES(S)[f->mstart + f->next];
            f->next++;
            if (push_move(S, &m) < 0) return -1;
            S->nodes++;
            if ((S->nodes % CHECK_EVERY == 0 && now() > deadline) || S->nodes >= node_cap) return 2;
            r = beam_enter(S, seen, h, base, nb);
            if (r < 0 || r == 1) return r;
            if (r == 0) pop_move(S);
        } else {
            Frame fr = *f;
            S->frames.n--;
            S->moves.n = (size_t)fr.mstart;
            for (int i = 0; i < fr.safe; i++) pop_move(S);
            if (S->frames.n) pop_move(S);
        }
    }
    return 0;
}

static int run(Search *S, double seconds, long long cap, long long *depth_out) {
    double deadline = now() + seconds;
    long long depth = 0;
    int r = enter(S);
    if (r < 0) return -1;
    if (r == 1) {
        *depth_out = 0;
        return ST_SOLVED;
    }
    if (lost(S->s)) { /* the root's Lemma D, as search.py: a proof, whatever the mode */
        *depth_out = 0;
        S->best_left = 1 << 30; /* search.py returns no figures with this verdict */
        S->best.n = 0;
        return ST_UNSOLVABLE;
    }
    while (S->frames.n) {
        Frame *f = &FRAMES(S)[S->frames.n - 1];
        if (f->next < f->nmoves) {
            Move m = MOVES(S)[f->mstart + f->next];
            f->next++;
            if (push_move(S, &m) < 0) return -1;
            S->nodes++;
            if ((S->nodes % CHECK_EVERY == 0 && now() > deadline) || S->nodes >= cap) {
                *depth_out = depth;
                return ST_UNKNOWN;
            }
            r = enter(S);
            if (r < 0) return -1;
            if (r == 1) {
                *depth_out = depth > (long long)S->frames.n ? depth : (long long)S->frames.n;
                return ST_SOLVED;
            }
            if (r == 0)
                pop_move(S);
            else if ((long long)S->frames.n > depth)
                depth = (long long)S->frames.n;
        } else {
            Frame fr = *f;
            S->frames.n--;
            S->moves.n = (size_t)fr.mstart;
            table_unpin(&S->table, fr.slot, S->nodes - fr.nodes0);
            for (int i = 0; i < fr.safe; i++) pop_move(S);
            if (S->frames.n) pop_move(S);
        }
    }
    *depth_out = depth;
    return S->rng.on ? ST_UNKNOWN : ST_UNSOLVABLE; /* a jittered restart proves nothing */
}

/* ---- Python glue -------------------------------------------------------------------------- */

static int get_int(PyObject *o, const char *name, int *out) {
    PyObject *v = PyObject_GetAttrString(o, name);
    if (!v) return -1;
    long x = PyLong_AsLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}

static int get_list(PyObject *o, const char *name, int *out, int maxn, int *n_out) {
    PyObject *v = PyObject_GetAttrString(o, name);
    if (!v) return -1;
    PyObject *seq = PySequence_Fast(v, "expected a sequence");
    Py_DECREF(v);
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > maxn) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: too many entries", name);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (int)x;
    }
    Py_DECREF(seq);
    *n_out = (int)n;
    return 0;
}

static int load_state(PyObject *o, State *s) {
    memset(s, 0, sizeof *s);
    if (get_int(o, "two", &s->two) || get_int(o, "klondike", &s->klondike) || get_int(o, "draw", &s->draw) ||
        get_int(o, "runs", &s->runs) || get_int(o, "king_only", &s->king_only) ||
        get_int(o, "suit_build", &s->suit_build) || get_int(o, "ncols", &s->ncols) ||
        get_int(o, "p_in_key", &s->p_in_key) || get_int(o, "passes", &s->passes) || get_int(o, "p", &s->p) ||
        get_int(o, "left", &s->left))
        return -1;
    if (s->ncols > MAXCOLS || s->passes > 6) {
        PyErr_SetString(PyExc_ValueError, "position outside the core's limits");
        return -1;
    }
    int buf[MAXTALON + MAXCOL], n;
    if (get_list(o, "found", buf, 8, &n)) return -1;
    s->nfound = n;
    for (int i = 0; i < n; i++) s->found[i] = buf[i];
    if (get_list(o, "down", buf, MAXCOLS, &n)) return -1;
    for (int i = 0; i < n && i < s->ncols; i++) s->down[i] = buf[i];
    if (get_list(o, "talon", buf, MAXTALON - 1, &n)) return -1;
    s->tlen = n;
    for (int i = 0; i < n; i++) s->talon[i] = (unsigned char)buf[i];
    PyObject *cols = PyObject_GetAttrString(o, "cols");
    if (!cols) return -1;
    PyObject *seq = PySequence_Fast(cols, "cols: expected a sequence");
    Py_DECREF(cols);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != s->ncols) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "cols and ncols disagree");
        return -1;
    }
    for (int i = 0; i < s->ncols; i++) {
        PyObject *c = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "a column: expected a sequence");
        if (!c) {
            Py_DECREF(seq);
            return -1;
        }
        Py_ssize_t len = PySequence_Fast_GET_SIZE(c);
        if (len >= MAXCOL) {
            Py_DECREF(c);
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a column is too long for the core");
            return -1;
        }
        s->ch[i][0] = ZD[0][s->down[i]];
        s->ch[i][1] = ZD[1][s->down[i]];
        for (Py_ssize_t k = 0; k < len; k++) {
            long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(c, k));
            if (x < 0 || x >= 52) {
                Py_DECREF(c);
                Py_DECREF(seq);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad card");
                return -1;
            }
            col_push(s, i, (int)x);
        }
        Py_DECREF(c);
    }
    Py_DECREF(seq);
    for (int i = 0; i < s->tlen; i++)
        if (s->talon[i] >= 52) {
            PyErr_SetString(PyExc_ValueError, "bad card");
            return -1;
        }
    for (int top = 0; top < 52; top++)
        for (int card = 0; card < 52; card++) {
            int ok = 0;
            if ((card >> 2) + 1 == (top >> 2))
                ok = s->suit_build ? (card & 3) == (top & 3) : RED[card & 3] != RED[top & 3];
            s->builds[top * 52 + card] = (unsigned char)ok;
        }
    for (int top = 0; top < 52; top++) { /* kids[top]: the cards that build on top */
        s->kids[top] = 0;
        for (int card = 0; card < 52; card++)
            if (s->builds[top * 52 + card]) s->kids[top] |= 1ULL << card;
    }
    for (int card = 0; card < 52; card++) {
        int r = card >> 2, su = card & 3;
        s->nparents[card] = 0;
        if (r == KING) continue;
        if (s->suit_build) {
            s->parents[card][s->nparents[card]++] = (signed char)(card + 4);
        } else {
            for (int t = 0; t < 4; t++)
                if (RED[t] != RED[su]) s->parents[card][s->nparents[card]++] = (signed char)((r + 1) * 4 + t);
        }
    }
    talon_rehash(s);
    return 0;
}

static PyObject *moves_to_list(const Move *m, size_t n) {
    PyObject *out = PyList_New((Py_ssize_t)n);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(iiiiiiii)", m[i].kind, m[i].a, m[i].b, m[i].n, m[i].j, m[i].k1, m[i].rd, m[i].k2);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, t);
    }
    return out;
}

static size_t table_buckets(double table_mb, long long max_nodes) {
    double bytes = table_mb * 1048576.0;
    size_t want = 64;
    while ((double)(want * 2) * BUCKET * sizeof(Entry) <= bytes) want *= 2;
    if (max_nodes > 0) { /* room for every position a capped search can enter, twice over */
        size_t need = 64;
        while ((long long)(need * BUCKET) < 2 * (max_nodes + 2) && need < want) need *= 2;
        if (need < want) want = need;
    }
    return want;
}

/* Play ``prefix`` (solver moves as 8-tuples, e.g. a restart's start from the best line) on
 * the loaded state, each checked to be legal there. */
static int play_prefix(State *s, PyObject *prefix) {
    PyObject *seq = PySequence_Fast(prefix, "prefix: expected a sequence of moves");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        int v[8];
        PyObject *t = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "prefix: a move is an 8-tuple");
        if (!t) goto fail;
        if (PySequence_Fast_GET_SIZE(t) != 8) {
            Py_DECREF(t);
            PyErr_SetString(PyExc_ValueError, "prefix: a move is an 8-tuple");
            goto fail;
        }
        for (int k = 0; k < 8; k++) {
            long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(t, k));
            if (x == -1 && PyErr_Occurred()) {
                Py_DECREF(t);
                goto fail;
            }
            v[k] = (int)x;
        }
        Py_DECREF(t);
        Move m = {(signed char)v[0], (signed char)v[1], (signed char)v[2], (signed char)v[6], (short)v[3],
                  (short)v[4], (short)v[5], (short)v[7]};
        int ok = 0, a = v[1], b = v[2], nn = v[3], j = v[4];
        int col_a = a >= 0 && a < s->ncols, col_b = b >= 0 && b < s->ncols;
        switch (v[0]) {
        case T2F: ok = col_a && s->len[a] && found_slot(s, s->col[a][s->len[a] - 1]) >= 0; break;
        case T2T: ok = col_a && col_b && a != b && nn >= 1 && nn <= s->len[a] && s->len[b] + nn < MAXCOL; break;
        case W2F: ok = j >= 0 && j < s->tlen && found_slot(s, s->talon[j]) >= 0; break;
        case W2T: ok = j >= 0 && j < s->tlen && col_b && s->len[b] + 1 < MAXCOL; break;
        case F2T: ok = s->klondike && a >= 0 && a < 4 && s->found[a] > 0 && col_b && s->len[b] + 1 < MAXCOL; break;
        default: ok = 0;
        }
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "prefix: move %zd does not fit the position", i);
            goto fail;
        }
        Hist h;
        play(s, &m, &h);
    }
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    return -1;
}

/* Free a Search and all it holds (its table, when it has one: a calloc'd one is empty). */
static void search_free(Search *S) {
    if (!S) return;
    table_free(&S->table);
    free(S->path.p);
    free(S->hist.p);
    free(S->frames.p);
    free(S->moves.p);
    free(S->best.p);
    free(S);
}

static PyObject *core_search(PyObject *self, PyObject *args, PyObject *kw) {
    if (!weights_set) {
        PyErr_SetString(PyExc_RuntimeError, "the core has no weights: init() first (core.py does)");
        return NULL;
    }
    static char *names[] = {"state", "seconds", "max_nodes", "table_mb", "rng", "noise", "keep_best", "prefix", NULL};
    PyObject *st, *rng = Py_None, *prefix = Py_None;
    double seconds, table_mb, noise = 0;
    long long max_nodes = -1;
    int keep_best = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OdLd|OdpO", names, &st, &seconds, &max_nodes, &table_mb, &rng, &noise,
                                     &keep_best, &prefix))
        return NULL;
    uint32_t mt[625];
    if (rng != Py_None) {
        PyObject *seq = PySequence_Fast(rng, "rng: expected random.Random.getstate()[1]");
        if (!seq) return NULL;
        if (PySequence_Fast_GET_SIZE(seq) != 625) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "rng: expected 625 words (random.Random.getstate()[1])");
            return NULL;
        }
        for (int i = 0; i < 625; i++) {
            unsigned long x = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
            if (PyErr_Occurred()) {
                Py_DECREF(seq);
                return NULL;
            }
            mt[i] = (uint32_t)x;
        }
        Py_DECREF(seq);
        if (mt[624] > 624) {
            PyErr_SetString(PyExc_ValueError, "rng: bad position");
            return NULL;
        }
    }
    State *s = malloc(sizeof(State));
    if (!s) return PyErr_NoMemory();
    if (load_state(st, s) < 0) {
        free(s);
        return NULL;
    }
    if (prefix != Py_None && play_prefix(s, prefix) < 0) {
        free(s);
        return NULL;
    }
    Search *S = calloc(1, sizeof(Search));
    if (!S) {
        free(s);
        return PyErr_NoMemory();
    }
    S->s = s;
    S->path.size = S->best.size = S->moves.size = sizeof(Move);
    S->hist.size = sizeof(Hist);
    S->frames.size = sizeof(Frame);
    S->keep_best = keep_best;
    S->best_left = 1 << 30;
    S->rng.on = rng != Py_None;
    if (S->rng.on) {
        memcpy(S->rng.mt, mt, sizeof S->rng.mt);
        S->rng.mti = (int)mt[624];
    }
    S->rng.noise = noise;
    size_t buckets = table_buckets(table_mb, max_nodes);
    PyObject *result = NULL;
    if (table_init(&S->table, buckets) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    long long cap = max_nodes >= 0 ? max_nodes : (1LL << 62);
    long long depth = 0;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run(S, seconds, cap, &depth);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *path = status == ST_SOLVED ? moves_to_list(PATH(S), S->path.n) : PyList_New(0);
    PyObject *best = moves_to_list((Move *)S->best.p, S->best.n);
    if (path && best)
        result = Py_BuildValue("(iOLLLiOLL)", status, path, S->nodes, depth, S->table.replaced, S->best_left, best,
                               (long long)S->table.stored, (long long)(buckets * BUCKET));
    Py_XDECREF(path);
    Py_XDECREF(best);
done:
    search_free(S);
    free(s);
    return result;
}


/* The beam (beam.py): level by level, every level's states having drawn the same cards; at
 * each level the ``width`` best positions (beam_score) reachable without a draw from the last
 * level's states, each state's closure capped at ``cap`` moves, then one draw from each. */
static int beam_run(Search *S, SeenSet *seen, const State *root, int width, long long cap, long long node_cap, double seconds, Move **win, size_t *nwin, Move **bestl, size_t *nbest) {
    double deadline = now() + seconds;
    Heap h = {calloc((size_t)width, sizeof(Cand)), 0, width, 0};
    Cand *beam = calloc((size_t)width, sizeof(Cand));
    int nbeam = 1, status = ST_UNKNOWN, best = 1 << 30;
    if (!h.c || !beam) {
        status = -1;
        goto out;
    }
    beam[0].line = malloc(sizeof(Move));
    beam[0].cap = 1;
    if (!beam[0].line) {
        status = -1;
        goto out;
    }
    for (;;) {
        seen->gen++; /* a new level: nothing seen yet */
        h.n = 0;
        int r = 0;
        for (int b = 0; b < nbeam && r != 1 && r != 2; b++) {
            memcpy(S->s, root, sizeof(State));
            play_line(S->s, beam[b].line, beam[b].n);
            S->path.n = S->hist.n = S->frames.n = S->moves.n = 0;
            r = beam_closure(S, seen, &h, beam[b].line, beam[b].n, cap, node_cap, deadline);
            if (r < 0) {
                status = -1;
                goto out;
            }
            if (r == 1) {
                size_t n = beam[b].n + S->path.n;
                *win = malloc(n * sizeof(Move) + 1);
                if (!*win) {
                    status = -1;
                    goto out;
                }
                memcpy(*win, beam[b].line, beam[b].n * sizeof(Move));
                memcpy(*win + beam[b].n, PATH(S), S->path.n * sizeof(Move));
                *nwin = kplus(*win, n, *win); /* in place: kplus never writes ahead of what it reads */
                free(*bestl); /* as beam.py: a win has no best line */
                *bestl = NULL;
                *nbest = 0;
                best = 0;
                status = ST_SOLVED;
                goto out;
            }
        }
        qsort(h.c, (size_t)h.n, sizeof(Cand), cand_order);
        int nnext = 0;
        for (int i = 0; i < h.n; i++) { /* the line to the fewest cards left, for the restarts */
            if (h.c[i].left < best) {
                best = h.c[i].left;
                free(*bestl);
                *bestl = malloc(h.c[i].n * sizeof(Move) + 1);
                if (!*bestl) {
                    status = -1;
                    goto out;
                }
                *nbest = kplus(h.c[i].line, h.c[i].n, *bestl);
            }
            if (h.c[i].step >= 0) { /* the states with a next step move to the front, in order */
                Cand t = h.c[nnext];
                h.c[nnext] = h.c[i];
                h.c[i] = t;
                nnext++;
            }
        }
        if (r == 2 || !nnext) break; /* out of budget, or no state can draw */
        for (int i = 0; i < nnext; i++) { /* those lines become the beam's, their step added */
            Cand t = beam[i];
            beam[i] = h.c[i];
            h.c[i] = t;
            if (beam[i].cap < beam[i].n + 1) {
                Move *q = realloc(beam[i].line, (beam[i].n + 1) * 2 * sizeof(Move));
                if (!q) {
                    status = -1;
                    goto out;
                }
                beam[i].line = q;
                beam[i].cap = (beam[i].n + 1) * 2;
            }
            beam[i].line[beam[i].n++] = (Move){beam[i].step ? REDEAL : DRAW, -1, -1, 0, 0, -1, 0, 0};
        }
        nbeam = nnext;
    }
out:
    S->best_left = best;
    if (h.c)
        for (int i = 0; i < width; i++) free(h.c[i].line);
    if (beam)
        for (int i = 0; i < width; i++) free(beam[i].line);
    free(h.c);
    free(beam);
    return status;
}

static PyObject *core_beam(PyObject *self, PyObject *args, PyObject *kw) {
    if (!weights_set) {
        PyErr_SetString(PyExc_RuntimeError, "the core has no weights: init() first (core.py does)");
        return NULL;
    }
    static char *names[] = {"state", "seconds", "max_nodes", "width", "cap", NULL};
    PyObject *st;
    double seconds;
    long long max_nodes = -1, cap = 400;
    int width = 100;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OdLiL", names, &st, &seconds, &max_nodes, &width, &cap))
        return NULL;
    if (width < 1 || cap < 1 || (long long)width * cap > 20000000LL) {
        PyErr_SetString(PyExc_ValueError, "width and cap must be at least 1, and width x cap at most 20,000,000");
        return NULL;
    }
    SeenSet seen = {NULL, 0, 0};
    State *root = malloc(sizeof(State)), *s = malloc(sizeof(State));
    Search *S = calloc(1, sizeof(Search));
    PyObject *result = NULL;
    Move *win = NULL, *best = NULL;
    size_t nwin = 0, nbest = 0;
    if (!root || !s || !S) {
        PyErr_NoMemory();
        goto done;
    }
    if (load_state(st, root) < 0) goto done;
    if (root->klondike || root->passes < 0) {
        PyErr_SetString(PyExc_ValueError, "the beam is for games with a limited stock and no face-down cards");
        goto done;
    }
    S->s = s;
    S->path.size = S->moves.size = sizeof(Move);
    S->hist.size = sizeof(Hist);
    S->frames.size = sizeof(Frame);
    S->best_left = 1 << 30;
    size_t slots = 64; /* a level enters at most width x (cap + 1) positions: room for twice that */
    while (slots < 2 * (size_t)width * (size_t)(cap + 1)) slots *= 2;
    seen.e = calloc(slots, sizeof(Seen));
    seen.mask = slots - 1;
    if (!seen.e) {
        PyErr_NoMemory();
        goto done;
    }
    int status;
    long long node_cap = max_nodes >= 0 ? max_nodes : (1LL << 62);
    Py_BEGIN_ALLOW_THREADS
    status = beam_run(S, &seen, root, width, cap, node_cap, seconds, &win, &nwin, &best, &nbest);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *line = status == ST_SOLVED ? moves_to_list(win, nwin) : PyList_New(0);
    PyObject *bl = moves_to_list(best, nbest);
    if (line && bl) result = Py_BuildValue("(iOLiO)", status, line, S->nodes, S->best_left, bl);
    Py_XDECREF(line);
    Py_XDECREF(bl);
done:
    free(seen.e);
    search_free(S);
    free(s);
    free(root);
    free(win);
    free(best);
    return result;
}

/* ``init(move_weights, beam_weights)``: the weights tables (moves.py's and beam.py's Weights),
 * read by field name; a table with a field this file does not know is refused. */
static int read_weights(PyObject *o, long long *out, const char *const *names, Py_ssize_t n) {
    if (PyObject_Length(o) != n) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "init: the weights table has other fields");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyObject_GetAttrString(o, names[i]);
        if (!v) return -1;
        out[i] = PyLong_AsLongLong(v);
        Py_DECREF(v);
        if (out[i] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *core_init(PyObject *self, PyObject *args) {
#define NAME(name) #name,
    static const char *const move_names[] = {MOVE_WEIGHTS(NAME)}, *const beam_names[] = {BEAM_WEIGHTS(NAME)};
#undef NAME
    PyObject *mw, *bw;
    if (!PyArg_ParseTuple(args, "OO", &mw, &bw)) return NULL;
    long long m[sizeof W / sizeof(long long)], b[sizeof BW / sizeof(long long)];
    if (read_weights(mw, m, move_names, sizeof W / sizeof(long long)) ||
        read_weights(bw, b, beam_names, sizeof BW / sizeof(long long)))
        return NULL;
    memcpy(&W, m, sizeof W);
    memcpy(&BW, b, sizeof BW);
    weights_set = 1;
    Py_RETURN_NONE;
}

static PyObject *core_entry_bytes(PyObject *self, PyObject *noargs) { return PyLong_FromSize_t(sizeof(Entry)); }

static PyMethodDef methods[] = {
    {"search", (PyCFunction)(void (*)(void))core_search, METH_VARARGS | METH_KEYWORDS,
     "search(state, seconds, max_nodes, table_mb, width=-1, rng=None, noise=0, keep_best=False, dead=False,\n"
     "       prefix=None)\n"
     "-> (status, path, nodes, depth, replaced, best_left, best_path, stored, slots, dead_cuts);\n"
     "status 0 solved, 1 unsolvable, 2 unknown. max_nodes < 0: no cap; rng: None (no jitter) or\n"
     "random.Random.getstate()[1]."},
    {"beam", (PyCFunction)(void (*)(void))core_beam, METH_VARARGS | METH_KEYWORDS,
     "beam(state, seconds, max_nodes, width, cap)\n"
     "-> (status, line, nodes, best_left, best_line); status 0 solved, 2 unknown (a beam proves nothing)."},
    {"init", core_init, METH_VARARGS, "init(move_weights, beam_weights): the weights tables, by field name."},
    {"entry_bytes", core_entry_bytes, METH_NOARGS, "Bytes per table entry."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "The compiled search core (see core.py).", -1,
                                    methods, NULL, NULL, NULL, NULL};

#ifndef CORE_SOURCE_SHA256
#define CORE_SOURCE_SHA256 "unknown"
#endif

PyMODINIT_FUNC PyInit__core(void) {
    init_zobrist();
    for (int i = 1; i < (1 << 13); i++) POP13[i] = (unsigned char)(POP13[i >> 1] + (i & 1));
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyObject *kinds = Py_BuildValue("{sisisisisisisi}", "DRAW", DRAW, "REDEAL", REDEAL, "T2F", T2F, "T2T", T2T, "W2F", W2F,
                                    "W2T", W2T, "F2T", F2T);
    if (!kinds || PyModule_AddObject(m, "KINDS", kinds) < 0) {
        Py_XDECREF(kinds);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddStringConstant(m, "SOURCE_SHA256", CORE_SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
