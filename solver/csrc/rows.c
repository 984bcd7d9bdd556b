/* Lemma B (docs/solver.md, "Lemma B: two-deck proofs of loss in the image game"): the image game of the
 * two-deck games that build down in suit (Forty Thieves, Josephine, Lucas, Limited, Forty and Eight),
 * searched exhaustively. Only its loss direction is a theorem: every move of the deal changes the image by
 * an image move or not at all, so a lost image proves the position lost; a won image proves nothing.
 *
 * The image: the foundations, the talon (its cards, p and passes), for each column how many of its dealt
 * cards are still in place (h) and whether a moved card lies on the top one of them (cov), and the multiset
 * of moved cards that lie at the bottom of an emptied column (the bases). Which parent any other moved card
 * lies on is forgotten; how many moved copies of each card have nothing on them is still exact (the count
 * in ``exposed``). Images are kept exactly (no hashing into fewer bits); a full table ends the search as
 * unknown, never as a verdict. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "search.h"

#define RMAXH 15 /* dealt cards a column may still hold in place (4 bits of the key) */

typedef struct {
    int left, tlen, p, passes;
    unsigned cov;                           /* bit c: a moved card lies on column c's top dealt card */
    unsigned char h[MAXCOLS];               /* dealt cards still in place */
    unsigned char placed[52], bases[52];    /* moved copies of each card in the tableau; of them, bases */
    int found[8];                           /* the suit's two piles, the higher first (as State) */
    unsigned char talon[MAXTALON], tix[MAXTALON]; /* the talon in draw order, and each card's index in the root's */
} Rimg;

typedef struct {
    int ncols, runs, draw;
    unsigned char orig[MAXCOLS][RMAXH];
} Rdeal;

enum { SRC_DEALT, SRC_ON_DEALT, SRC_ON_PLACED, SRC_BASE, SRC_TALON };
enum { TO_UP, TO_DEALT, TO_PLACED, TO_EMPTY };

typedef struct {
    unsigned char src, a, k, card, to, b, rd;
} Rmove;

typedef struct {
    uint64_t w[6]; /* w[2] has bit 63 set in a used slot */
} Rkey;

static int rows_load(const State *s, Rdeal *D, Rimg *I) {
    if (s->klondike || !s->two || !s->suit_build || s->draw != 1 || s->ncols > MAXCOLS || s->passes > 2)
        return -1;
    memset(D, 0, sizeof *D);
    memset(I, 0, sizeof *I);
    D->ncols = s->ncols;
    D->runs = s->runs;
    D->draw = s->draw;
    for (int c = 0; c < s->ncols; c++) { /* every card of the position counts as in place */
        if (s->len[c] > RMAXH) return -1;
        memcpy(D->orig[c], s->col[c], (size_t)s->len[c]);
        I->h[c] = (unsigned char)s->len[c];
    }
    I->left = s->left;
    I->tlen = s->tlen;
    I->p = s->p;
    I->passes = s->passes;
    memcpy(I->found, s->found, sizeof I->found);
    memcpy(I->talon, s->talon, (size_t)s->tlen);
    for (int j = 0; j < s->tlen; j++) I->tix[j] = (unsigned char)j;
    return 0;
}

static void rows_key(const Rdeal *D, const Rimg *I, Rkey *k) {
    memset(k, 0, sizeof *k);
    for (int j = 0; j < I->tlen; j++) k->w[I->tix[j] >> 6] |= 1ULL << (I->tix[j] & 63);
    uint64_t w = 1ULL << 63 | (uint64_t)I->p << 48 | (uint64_t)(I->passes + 1) << 56 | (uint64_t)I->cov << 32;
    for (int f = 0; f < 8; f++) w |= (uint64_t)I->found[f] << (4 * f);
    k->w[2] = w;
    for (int c = 0; c < D->ncols; c++) k->w[3] |= (uint64_t)I->h[c] << (4 * c);
    for (int x = 0; x < 52; x++) k->w[4 + x / 32] |= (uint64_t)I->bases[x] << (2 * (x % 32));
}

/* Counts the image fixes: ``surf`` (tops of the dealt cards still in place, by card), ``cover`` (of them,
 * those a moved card lies on), ``exposed`` (moved copies with nothing on them) and the empty columns. A
 * moved card that is not a base lies on a copy of its parent (the card one rank higher of its suit), and
 * on a dealt top exactly where cov says so; the rest lie on moved parents. So the moved copies of y with
 * nothing on them are placed[y] minus the non-base moved copies of y's child that lie on moved copies. */
typedef struct {
    unsigned char surf[52], cover[52], exposed[52];
    int empty;
} Rview;

static void rows_view(const Rdeal *D, const Rimg *I, Rview *v) {
    memset(v, 0, sizeof *v);
    int nb = 0;
    for (int c = 0; c < D->ncols; c++) {
        if (!I->h[c]) {
            v->empty++;
            continue;
        }
        int y = D->orig[c][I->h[c] - 1];
        v->surf[y]++;
        if (I->cov >> c & 1) v->cover[y]++;
    }
    for (int y = 0; y < 52; y++) {
        nb += I->bases[y];
        int on_moved = y >= 4 ? I->placed[y - 4] - I->bases[y - 4] - v->cover[y] : 0;
        v->exposed[y] = (unsigned char)(I->placed[y] - on_moved);
    }
    v->empty -= nb;
}

static int up_slot(const int *found, int x) {
    int r = x >> 2, i = 2 * (x & 3);
    return found[i] == r ? i : found[i + 1] == r ? i + 1 : -1;
}

static void put_up(Rimg *I, int x) {
    int i = up_slot(I->found, x);
    I->found[i]++;
    if (i & 1 && I->found[i] > I->found[i - 1]) { /* keep the suit's piles in order */
        int t = I->found[i];
        I->found[i] = I->found[i - 1];
        I->found[i - 1] = t;
    }
    I->left--;
}

/* Plays ``m`` on ``I`` (a copy the caller keeps the parent's image in). */
static void rows_play(const Rdeal *D, Rimg *I, const Rmove *m) {
    int x = m->card;
    switch (m->src) {
    case SRC_DEALT: { /* the top k dealt cards of column a (a run): all move; the lowest is x */
        int c = m->a;
        I->h[c] = (unsigned char)(I->h[c] - m->k);
        I->cov &= ~(1u << c);
        for (int q = 1; q < m->k; q++) I->placed[D->orig[c][I->h[c] + q]]++;
        if (m->to != TO_UP) I->placed[x]++;
        break;
    }
    case SRC_ON_DEALT:
        I->cov &= ~(1u << m->a);
        if (m->to == TO_UP) I->placed[x]--;
        break;
    case SRC_ON_PLACED:
        if (m->to == TO_UP) I->placed[x]--;
        break;
    case SRC_BASE:
        I->bases[x]--;
        if (m->to == TO_UP) I->placed[x]--;
        break;
    default: {
        int j = m->a;
        memmove(I->talon + j, I->talon + j + 1, (size_t)(I->tlen - j - 1));
        memmove(I->tix + j, I->tix + j + 1, (size_t)(I->tlen - j - 1));
        I->tlen--;
        I->p = j;
        if (m->rd && I->passes > 0) I->passes--;
        if (m->to != TO_UP) I->placed[x]++;
    }
    }
    if (m->to == TO_UP)
        put_up(I, x);
    else if (m->to == TO_DEALT)
        I->cov |= 1u << m->b;
    else if (m->to == TO_EMPTY)
        I->bases[x]++;
}

#define RMAXMOVES 4096 /* > 16 columns x 16 units x 5 targets + 52 cards x 2 x 5 + 228 routes x 5 */

/* The two-deck safe rule (safe.py, is_safe): a card whose suit's lower pile is at its rank goes up, and
 * nothing can lie on any copy of it (both copies of its child are up): a copy in the tableau or on the
 * waste's top goes up alone. */
static int rows_safe(const Rdeal *D, const Rimg *I, const Rview *v, Rmove *out) {
    for (int s = 0; s < 4; s++) {
        int r = I->found[2 * s + 1];
        if (r >= 13) continue;
        int x = r * 4 + s;
        for (int c = 0; c < D->ncols; c++)
            if (I->h[c] && D->orig[c][I->h[c] - 1] == x) {
                *out = (Rmove){SRC_DEALT, (unsigned char)c, 1, (unsigned char)x, TO_UP, 0, 0};
                return 1;
            }
        if (I->bases[x]) {
            *out = (Rmove){SRC_BASE, 0, 1, (unsigned char)x, TO_UP, 0, 0};
            return 1;
        }
        if (x < 48 && v->cover[x + 4])
            for (int c = 0; c < D->ncols; c++)
                if ((I->cov >> c & 1) && D->orig[c][I->h[c] - 1] == x + 4) {
                    *out = (Rmove){SRC_ON_DEALT, (unsigned char)c, 1, (unsigned char)x, TO_UP, 0, 0};
                    return 1;
                }
        if (I->placed[x]) {
            *out = (Rmove){SRC_ON_PLACED, 0, 1, (unsigned char)x, TO_UP, 0, 0};
            return 1;
        }
        if (I->p && I->talon[I->p - 1] == x) {
            *out = (Rmove){SRC_TALON, (unsigned char)(I->p - 1), 1, (unsigned char)x, TO_UP, 0, 0};
            return 1;
        }
    }
    return 0;
}

/* The moves of one unit whose lowest card is x (from ``src``, ``a``, ``k``): up (when ``top``: nothing
 * lies on it), onto a free dealt top or a free moved copy of its parent, or into an empty column. */
static size_t rows_targets(const Rdeal *D, const Rimg *I, const Rview *v, Rmove m, int top, int to_empty,
                           int to_placed, Rmove *out) {
    size_t n = 0;
    int x = m.card;
    if (top && up_slot(I->found, x) >= 0) {
        m.to = TO_UP;
        out[n++] = m;
    }
    if (x < 48) {
        for (int c = 0; c < D->ncols; c++)
            if (I->h[c] && !(I->cov >> c & 1) && D->orig[c][I->h[c] - 1] == x + 4) {
                m.to = TO_DEALT;
                m.b = (unsigned char)c;
                out[n++] = m;
            }
        if (to_placed && v->exposed[x + 4]) {
            m.to = TO_PLACED;
            out[n++] = m;
        }
    }
    if (to_empty && v->empty > 0) {
        m.to = TO_EMPTY;
        out[n++] = m;
    }
    return n;
}

static size_t rows_moves(const Rdeal *D, const Rimg *I, Rmove *out, State *scratch) {
    Rview v;
    rows_view(D, I, &v);
    if (rows_safe(D, I, &v, out)) return 1;
    size_t n = 0;
    int runs = D->runs;
    for (int c = 0; c < D->ncols; c++) {
        int h = I->h[c], cov = I->cov >> c & 1;
        if (!h) continue;
        /* the top k dealt cards, with what lies on them: one card (free) or, with runs, any run */
        for (int k = 1; k <= h; k++) {
            if (k > 1 && (!runs || D->orig[c][h - k + 1] + 4 != D->orig[c][h - k])) break;
            if (!runs && cov) break;
            int x = D->orig[c][h - k];
            Rmove m = {SRC_DEALT, (unsigned char)c, (unsigned char)k, (unsigned char)x, 0, 0, 0};
            n += rows_targets(D, I, &v, m, k == 1 && !cov, k < h, 1, out + n); /* all of the column: a renaming */
        }
        if (cov) { /* the moved card on the dealt top */
            int x = D->orig[c][h - 1] - 4;
            if (runs || v.exposed[x]) {
                Rmove m = {SRC_ON_DEALT, (unsigned char)c, 1, (unsigned char)x, 0, 0, 0};
                n += rows_targets(D, I, &v, m, v.exposed[x] > 0, 1, 1, out + n);
            }
        }
    }
    for (int x = 0; x < 52; x++) {
        if (!I->placed[x] || (!runs && !v.exposed[x])) continue;
        int top = v.exposed[x] > 0;
        int on_moved = x < 48 ? I->placed[x] - I->bases[x] - v.cover[x + 4] : 0;
        if (on_moved > 0) { /* to another moved parent it changes nothing */
            Rmove m = {SRC_ON_PLACED, 0, 1, (unsigned char)x, 0, 0, 0};
            n += rows_targets(D, I, &v, m, top, 1, 0, out + n);
        }
        if (I->bases[x]) { /* into another empty column: a renaming */
            Rmove m = {SRC_BASE, 0, 1, (unsigned char)x, 0, 0, 0};
            n += rows_targets(D, I, &v, m, top, 0, 1, out + n);
        }
    }
    scratch->p = I->p;
    scratch->tlen = I->tlen;
    scratch->passes = I->passes;
    memcpy(scratch->talon, I->talon, (size_t)I->tlen);
    Route r[MAXROUTES];
    int nr = stock_routes(scratch, r);
    for (int q = 0; q < nr; q++) {
        int w = I->talon[r[q].j];
        Rmove m = {SRC_TALON, (unsigned char)r[q].j, 1, (unsigned char)w, 0, 0, (unsigned char)r[q].rd};
        n += rows_targets(D, I, &v, m, 1, 1, 1, out + n);
    }
    return n;
}

static uint64_t rmix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* 1: new (stored), 0: already there, -1: the table is full. */
static int rows_remember(Rkey *tab, size_t mask, size_t *used, const Rkey *k) {
    uint64_t hsh = 0;
    for (int q = 0; q < 6; q++) hsh = rmix(hsh ^ k->w[q]);
    size_t i = (size_t)(hsh & mask);
    while (tab[i].w[2]) {
        if (!memcmp(&tab[i], k, sizeof *k)) return 0;
        i = (i + 1) & mask;
    }
    if (*used >= mask - mask / 4) return -1;
    tab[i] = *k;
    ++*used;
    return 1;
}

typedef struct {
    Rimg img;
    size_t start, n, i;
} Rframe;

static int rows_search(const Rdeal *D, Rimg *root, const Options *o, Outcome *out) {
    memset(out, 0, sizeof *out);
    out->status = ST_UNKNOWN;
    size_t slots = 1024;
    while ((double)(slots * 2) * sizeof(Rkey) <= o->table_mb * 1048576.0 && slots < ((size_t)1 << 40)) slots *= 2;
    Rkey *tab = calloc(slots, sizeof(Rkey));
    size_t fcap = 128, mcap = 128 * RMAXMOVES, nf = 0, used = 0;
    Rframe *fr = malloc(fcap * sizeof *fr);
    Rmove *mv = malloc(mcap * sizeof *mv);
    State *scratch = calloc(1, sizeof *scratch);
    int rc = -1;
    if (!tab || !fr || !mv || !scratch) goto done;
    scratch->draw = D->draw;
    double deadline = now() + o->seconds;
    long long cap = o->max_nodes < 0 ? (1LL << 62) : o->max_nodes;
    Rkey k;
    rows_key(D, root, &k);
    rows_remember(tab, slots - 1, &used, &k);
    out->nodes = 1;
    rc = 0;
    if (root->left == 0) {
        out->status = ST_SOLVED;
        goto done;
    }
    fr[0].img = *root;
    fr[0].start = 0;
    fr[0].i = 0;
    fr[0].n = rows_moves(D, root, mv, scratch);
    nf = 1;
    while (nf) {
        Rframe *f = &fr[nf - 1];
        if (f->i == f->n) {
            nf--;
            continue;
        }
        if (nf == fcap) {
            if (grow((void **)&fr, &fcap, sizeof *fr) < 0) {
                rc = -1;
                goto done;
            }
            f = &fr[nf - 1];
        }
        Rframe *next = &fr[nf];
        next->img = f->img;
        rows_play(D, &next->img, &mv[f->start + f->i++]);
        if (next->img.left == 0) {
            out->status = ST_SOLVED; /* a won image: no verdict on the position */
            goto done;
        }
        rows_key(D, &next->img, &k);
        int r = rows_remember(tab, slots - 1, &used, &k);
        if (r < 0) goto done; /* unknown: the table is full */
        if (r == 0) continue;
        if (++out->nodes >= cap || (out->nodes % CHECK_EVERY == 0 && now() > deadline)) goto done;
        next->start = f->start + f->n;
        if (next->start + RMAXMOVES > mcap && grow((void **)&mv, &mcap, sizeof *mv) < 0) {
            rc = -1;
            goto done;
        }
        next->i = 0;
        next->n = rows_moves(D, &next->img, mv + next->start, scratch);
        nf++;
        if ((long long)nf > out->depth) out->depth = (long long)nf;
    }
    out->status = ST_UNSOLVABLE;
done:
    out->stored = (long long)used;
    out->slots = (long long)slots;
    free(tab);
    free(fr);
    free(mv);
    free(scratch);
    return rc;
}

int rows_position(const State *s, const Options *o, Outcome *out) {
    Rdeal *D = malloc(sizeof *D);
    Rimg *I = malloc(sizeof *I);
    int r = -1;
    if (D && I) r = rows_load(s, D, I) < 0 ? -2 : rows_search(D, I, o, out);
    free(D);
    free(I);
    return r;
}
