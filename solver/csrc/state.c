/* The position (state.py): play and undo, the hashed key, the safe moves (safe.py) and the
 * cards that can never leave their places (dead.py). */
#include <stdlib.h>
#include <string.h>

#include "core.h"

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

void init_zobrist(void) {
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
static void talon_hash(const unsigned char *talon, int tlen, int p, int p_in_key, int passes, uint64_t *ta, uint64_t *tb) {
    uint64_t a = ZTL[0][tlen], b = ZTL[1][tlen];
    int split = p_in_key ? p : tlen, last = tlen - 1;
    for (int i = 0; i < split; i++) {
        a ^= ZT[0][i][talon[i]];
        b ^= ZT[1][i][talon[i]];
    }
    for (int i = split; i < tlen; i++) {
        a ^= ZS[0][last - i][talon[i]];
        b ^= ZS[1][last - i][talon[i]];
    }
    if (p_in_key) {
        a ^= ZP[0][p] ^ ZPASS[0][passes + 1];
        b ^= ZP[1][p] ^ ZPASS[1][passes + 1];
    }
    *ta = a;
    *tb = b;
}

void talon_rehash(State *s) { talon_hash(s->talon, s->tlen, s->p, s->p_in_key, s->passes, &s->th[0], &s->th[1]); }

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
void talon_drew(State *s) {
    int p = s->p, c = s->talon[p], from_end = s->tlen - 1 - p;
    for (int h = 0; h < 2; h++) s->th[h] ^= ZS[h][from_end][c] ^ ZT[h][p][c] ^ ZP[h][p] ^ ZP[h][p + 1];
    s->p = p + 1;
    check_talon_hash(s);
}

/* The key's columns and foundations (``found``: the position's own or dead weight's), before the talon. */
static void key_base(const State *s, const int *found, uint64_t *a, uint64_t *b) {
    *a = *b = 0;
    for (int i = 0; i < s->ncols; i++) {
        *a += mix_a(s->ch[i][0]);
        *b += mix_b(s->ch[i][1]);
    }
    for (int i = 0; i < s->nfound; i++) {
        *a ^= ZF[0][i][found[i]];
        *b ^= ZF[1][i][found[i]];
    }
}

static void key_with(const State *s, const int *found, uint64_t ta, uint64_t tb, uint64_t *lo, uint64_t *hi) {
    uint64_t a, b;
    key_base(s, found, &a, &b);
    *lo = a ^ ta;
    *hi = (b ^ tb) | 1; /* never zero: zero marks an empty table entry */
}

void key_of(const State *s, uint64_t *lo, uint64_t *hi) { key_with(s, s->found, s->th[0], s->th[1], lo, hi); }

/* dead weight in the waste (reference/dead_weight.py): the waste indexes of the dead-weight cards, bottom first. */
static int dead_weight(const State *s, int *idx) {
    int n = 0;
    for (int i = 0; i < s->p; i++) {
        int c = s->talon[i], r = c >> 2, su = c & 3, ok = s->found[2 * su + 1] >= r; /* (i) */
        for (int t = 0; t < 4 && ok && !s->suit_build; t++) ok = RED[t] == RED[su] || s->found[2 * t + 1] >= r; /* (ii) */
        if (ok) idx[n++] = i;
    }
    return n;
}

/* The pile ``card`` can go onto in ``found`` (a position's foundations), or -1. */
static int slot_in(const int *found, int two, int card) {
    int r = card >> 2, su = card & 3;
    if (two) {
        int i = 2 * su;
        if (found[i] == r) return i;
        if (found[i + 1] == r) return i + 1;
        return -1;
    }
    return found[su] == r ? su : -1;
}

int found_slot(const State *s, int card) { return slot_in(s->found, s->two, card); }

/* The key of ``s`` with the waste cards at ``idx`` (n of them, ascending) put up. */
static void key_put_up(const State *s, const int *idx, int n, uint64_t *lo, uint64_t *hi) {
    int found[8];
    unsigned char talon[MAXTALON];
    memcpy(found, s->found, sizeof found);
    int tlen = 0;
    for (int i = 0, k = 0; i < s->tlen; i++) {
        int c = s->talon[i];
        if (k < n && idx[k] == i) {
            found[slot_in(found, 1, c)]++;
            k++;
        } else {
            talon[tlen++] = (unsigned char)c;
        }
    }
    uint64_t ta, tb;
    talon_hash(talon, tlen, s->p - n, s->p_in_key, s->passes, &ta, &tb);
    key_with(s, found, ta, tb, lo, hi);
}

/* The keys of the positions dead weight in the waste finds no worse than ``s`` (at most MAXTALON + 1): each
 * dead-weight card put up alone, then all of them (more than one). How many. A single card at
 * waste index i shifts the waste cards above it down one place: p is in the key in every game
 * dead weight in the waste applies to (reference.dead_weight.applies), so its talon hash is ``s``'s with the terms of places
 * i..p-1 replaced, kept as suffix sums over the waste: each single key costs O(1) after one pass. */
int dominator_keys(const State *s, uint64_t *lo, uint64_t *hi) {
    int idx[MAXTALON], n = dead_weight(s, idx);
    if (!n) return 0;
    uint64_t suffix[2] = {0, 0}; /* places j..p-1: (their card) ^ (the card above, one place down) */
    uint64_t base[2];
    key_base(s, s->found, &base[0], &base[1]);
    int k = n - 1, tlen = s->tlen, p = s->p;
    for (int j = p - 1; j >= 0 && k >= 0; j--) {
        for (int h = 0; h < 2; h++) {
            suffix[h] ^= ZT[h][j][s->talon[j]];
            if (j < p - 1) suffix[h] ^= ZT[h][j][s->talon[j + 1]];
        }
        if (idx[k] != j) continue;
        int slot = found_slot(s, s->talon[j]), f = s->found[slot];
        uint64_t key[2];
        for (int h = 0; h < 2; h++)
            key[h] = base[h] ^ ZF[h][slot][f] ^ ZF[h][slot][f + 1] ^ s->th[h] ^ ZTL[h][tlen] ^ ZTL[h][tlen - 1] ^
                     ZP[h][p] ^ ZP[h][p - 1] ^ suffix[h];
        lo[k] = key[0];
        hi[k] = key[1] | 1;
        k--;
    }
    if (n > 1) key_put_up(s, idx, n, lo + n, hi + n);
    return n > 1 ? n + 1 : n;
}

void play(State *s, const Move *m, Hist *h) {
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

void undo(State *s, const Move *m, const Hist *h) {
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

/* The tables a position's rules imply (what builds on what) and its hashes, once its cards
 * are in (module.c's load_state). */
void state_prepare(State *s) {
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
    for (int i = 0; i < s->ncols; i++) {
        s->ch[i][0] = ZD[0][s->down[i]];
        s->ch[i][1] = ZD[1][s->down[i]];
        for (int k = 0; k < s->len[i]; k++) {
            s->ch[i][0] ^= ZC[0][k][s->col[i][k]];
            s->ch[i][1] ^= ZC[1][k][s->col[i][k]];
        }
    }
    talon_rehash(s);
}

/* ---- safe moves (safe.py) -------------------------------------------------------------- */

int klondike_safe(const int *f, int r, int su) {
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
 * order moves.py's stock_positions gives them. */
int stock_routes(const State *s, Route *out) {
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

int safe_move(const State *s, Move *m) {
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
    if (s->klondike && s->draw == 1 && s->passes < 0) { /* the safe move from the talon (safe.py) */
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

/* ---- cards that can never leave their places (frozen cards; reference/frozen.py) ----------------------- */

#define WASTE_PLACE MAXCOLS /* the waste's place index (dead.py's WASTE) */

typedef struct {
    short pl, j;
    unsigned char card;
} Member;

/* Mirrors reference.frozen.lost: true when the largest set of cards that can only leave their places by
 * themselves and break none of (F), (P), (E) is not empty. */
int lost(const State *s) {
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

/* ---- cards that can never go up past a one-pass stock (dead.py, never_all_up) ---------------- */

/* Mirrors dead.never_all_up (the statement and its proof are there): the least sets of places
 * that may be left (mc, mt) and of cards that may go up (uc, ut), closed once per stage (pass,
 * talon cards drawn in it); true when some card is outside the second after the last stage. */
int never_all_up(const State *s) {
    if (s->klondike || s->draw != 1 || s->passes < 0) return 0;
    for (int i = 0; i < s->ncols; i++)
        if (s->down[i]) return 0;
    unsigned char ready[52], waits[52], host[52], goes[52];
    int mval[52], uval[52];
    int npiles = s->two ? 2 : 1;
    for (int c = 0; c < 52; c++) {
        int r = c >> 2, su = c & 3;
        ready[c] = waits[c] = 0;
        for (int q = 0; q < npiles; q++) {
            int f = s->two ? s->found[2 * su + q] : s->found[su];
            if (f == r) ready[c] = 1;
            if (f < r) waits[c] = 1;
        }
        mval[c] = uval[c] = 0;
    }
    unsigned char mc[MAXCOLS][MAXCOL], uc[MAXCOLS][MAXCOL];
    short ends[MAXCOLS][MAXCOL];
    for (int i = 0; i < s->ncols; i++) {
        int n = s->len[i];
        memset(mc[i], 0, (size_t)n);
        memset(uc[i], 0, (size_t)n);
        for (int j = n - 1; j >= 0; j--)
            ends[i][j] = (short)(s->runs && j < n - 1 && s->builds[s->col[i][j] * 52 + s->col[i][j + 1]] ? ends[i][j + 1] : j);
    }
    unsigned char mt[MAXTALON], ut[MAXTALON];
    memset(mt, 0, sizeof mt);
    memset(ut, 0, sizeof ut);
#define CAN_UP(c) (ready[c] || (waits[c] && uval[(c) - 4] > 0))
    for (int pass = 0; pass <= s->passes; pass++) {
        int start = pass ? 0 : s->p;
        for (int drawn = start; drawn <= s->tlen; drawn++) {
            if (drawn > start && !mt[drawn - 1]) {
                int c = s->talon[drawn - 1];
                if (!CAN_UP(c) && !goes[c]) continue; /* it stays on the waste's top: nothing changes */
            }
            int changed = 1;
            while (changed) {
                changed = 0;
                int empty = 0;
                for (int c = 0; c < 52; c++) host[c] = mval[c] > 0;
                for (int i = 0; i < s->ncols; i++) {
                    int n = s->len[i], all = 1;
                    for (int z = 0; z < n; z++)
                        if (!mc[i][z]) {
                            all = 0;
                            if (z == n - 1 || mc[i][z + 1]) host[s->col[i][z]] = 1;
                        }
                    empty |= all;
                }
                for (int c = 0; c < 52; c++) {
                    goes[c] = (unsigned char)(empty && (!s->king_only || (c >> 2) == KING));
                    for (int q = 0; q < s->nparents[c] && !goes[c]; q++) goes[c] = host[(int)s->parents[c][q]];
                }
                for (int i = 0; i < s->ncols; i++) {
                    int n = s->len[i];
                    const unsigned char *col = s->col[i];
                    for (int j = 0; j < n; j++) {
                        if (uc[i][j]) continue;
                        if (!mc[i][j]) {
                            int ex = 0;
                            for (int k = j; k <= ends[i][j] && !ex; k++) ex = k == n - 1 || mc[i][k + 1];
                            if (!ex) continue; /* not exposed: it cannot leave its place yet */
                        }
                        int card = col[j];
                        if (CAN_UP(card)) {
                            uc[i][j] = 1;
                            uval[card]++;
                        } else if (mc[i][j] ||
                                   !(goes[card] || (s->runs && j > 0 && mc[i][j - 1] && s->builds[col[j - 1] * 52 + card]))) {
                            continue;
                        }
                        if (!mc[i][j]) {
                            mc[i][j] = 1;
                            mval[card]++;
                        }
                        changed = 1;
                    }
                }
                int exposed = 1; /* every talon card drawn after this one has left */
                for (int t = drawn - 1; t >= 0; t--) {
                    int card = s->talon[t];
                    if (!ut[t] && (exposed || mt[t])) {
                        if (CAN_UP(card)) {
                            ut[t] = 1;
                            uval[card]++;
                            changed = 1;
                        } else if (exposed && !mt[t] && goes[card]) {
                            changed = 1;
                        } else {
                            exposed = exposed && mt[t];
                            continue;
                        }
                        if (!mt[t]) {
                            mt[t] = 1;
                            mval[card]++;
                        }
                    }
                    exposed = exposed && mt[t];
                }
            }
        }
    }
#undef CAN_UP
    for (int t = 0; t < s->tlen; t++)
        if (!ut[t]) return 1;
    for (int i = 0; i < s->ncols; i++)
        for (int j = 0; j < s->len[i]; j++)
            if (!uc[i][j]) return 1;
    return 0;
}
