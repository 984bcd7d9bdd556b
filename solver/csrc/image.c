/* Klondike's image game (reference/image.py, the reference; the arguments are in docs/solver-proofs.md), which
 * forgets where face-up cards lie, searched exhaustively. "Unsolvable" proves the position lost; "solved"
 * comes with the image's line, which abstract.realize makes a win of. Images are kept exactly (128 bits,
 * no hashing into fewer), and a full table ends the search as unknown, never as a verdict. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "search.h"

enum { UP = 0, DOWN = 1, REVEAL = 2, TALON_UP = 3, TALON_DOWN = 4 };

typedef struct {
    unsigned char kind, a, rd;
    short j;
} IMove;

typedef struct {
    size_t start, n, i;
    IMove in;
    int u0, u1, u2;
} IFrame;

typedef struct {
    State t; /* the talon's fields only (talon, tlen, p, passes, draw): stock_routes reads them */
    int ncols, p_in_key, talon_safe, left;
    unsigned char orig[MAXCOLS][16];
    int h[MAXCOLS];
    int found[4];
    uint64_t placed, talonmask;
} Img;

typedef struct {
    uint64_t w0, w1; /* w0 has bit 63 set in a used slot */
} Slot;

static uint64_t TYPE[52], PAR[52], KIDS[52];
static const uint64_t KINGS = 0xfULL << 48;

void image_init(void) {
    for (int c = 0; c < 52; c++) {
        TYPE[c] = PAR[c] = KIDS[c] = 0;
        for (int x = 0; x < 52; x++) {
            int same = RED[x & 3] == RED[c & 3];
            if ((x >> 2) == (c >> 2) && same) TYPE[c] |= 1ULL << x;
            if ((x >> 2) == (c >> 2) + 1 && !same) PAR[c] |= 1ULL << x;
            if ((x >> 2) == (c >> 2) - 1 && !same) KIDS[c] |= 1ULL << x;
        }
    }
}

/* Bits set in ``m``, for the small masks here (a kind's two cards, the four kings): a loop, since a
 * portable build has no popcount instruction and the library's call cost a tenth of the search. */
static inline int pop(uint64_t m) {
    int n = 0;
    for (; m; m &= m - 1) n++;
    return n;
}

/* The position's image, or -1 when it does not fit this search's limits (reported as ValueError). */
static int image_load(const State *s, Img *I) {
    if (!s->klondike || s->two || s->ncols > 12 || s->tlen > 31 || s->passes > 6) return -1;
    memset(I, 0, sizeof *I);
    I->t.draw = s->draw;
    I->t.passes = s->passes;
    I->t.p = s->p;
    I->t.tlen = s->tlen;
    memcpy(I->t.talon, s->talon, (size_t)s->tlen);
    for (int j = 0; j < s->tlen; j++) I->talonmask |= 1ULL << s->talon[j];
    I->ncols = s->ncols;
    I->p_in_key = s->p_in_key;
    I->talon_safe = s->draw == 1 && s->passes < 0;
    I->left = s->left;
    for (int f = 0; f < 4; f++) I->found[f] = s->found[f];
    for (int c = 0; c < s->ncols; c++) {
        int n = s->len[c] ? s->down[c] + 1 : 0;
        if (n > 15) return -1;
        for (int k = 0; k < n; k++) I->orig[c][k] = s->col[c][k];
        I->h[c] = n;
        for (int k = n; k < s->len[c]; k++) {
            if (!(PAR[s->col[c][k]] >> s->col[c][k - 1] & 1)) return -1; /* face-up cards form one run */
            I->placed |= 1ULL << s->col[c][k];
        }
    }
    return 0;
}

static void image_key(const Img *I, Slot *k) {
    uint64_t w0 = I->talonmask | 1ULL << 63, w1 = 0;
    if (I->p_in_key) w0 |= (uint64_t)I->t.p << 52 | (uint64_t)(I->t.passes + 1) << 57;
    for (int f = 0; f < 4; f++) w1 |= (uint64_t)I->found[f] << (4 * f);
    for (int c = 0; c < I->ncols; c++) w1 |= (uint64_t)I->h[c] << (16 + 4 * c);
    k->w0 = w0;
    k->w1 = w1;
}

static int free_parent(uint64_t vis, uint64_t placed, int empty, int x) {
    if (x >= 48) return empty > 0;
    return pop(vis & PAR[x]) - pop(placed & TYPE[x]) > 0;
}

/* The image moves, in reference/image.py's order; the worry-back safe card alone when there is one. */
static size_t image_moves(const Img *I, IMove *out) {
    uint64_t surf = 0, placed = I->placed;
    int empty = 0;
    size_t n = 0;
    for (int c = 0; c < I->ncols; c++) {
        if (I->h[c])
            surf |= 1ULL << I->orig[c][I->h[c] - 1];
        else
            empty++;
    }
    uint64_t vis = placed | surf;
    empty -= pop(placed & KINGS);
    Route r[MAXROUTES];
    int nr = stock_routes(&I->t, r);
    for (int s = 0; s < 4; s++) {
        int f = I->found[s];
        if (f < 13 && klondike_safe(I->found, f, s)) {
            int x = f * 4 + s;
            if (vis >> x & 1) {
                out[0] = (IMove){UP, (unsigned char)x, 0, 0};
                return 1;
            }
            if (I->talon_safe)
                for (int q = 0; q < nr; q++)
                    if (I->t.talon[r[q].j] == x) {
                        out[0] = (IMove){TALON_UP, 0, (unsigned char)r[q].rd, (short)r[q].j};
                        return 1;
                    }
        }
    }
    for (int s = 0; s < 4; s++) {
        int f = I->found[s];
        if (f < 13) {
            int x = f * 4 + s;
            if ((vis >> x & 1) && pop(vis & TYPE[x]) - pop(placed & KIDS[x]) > 0) out[n++] = (IMove){UP, (unsigned char)x, 0, 0};
        }
        if (f && !klondike_safe(I->found, f - 1, s)) { /* safe cards stay up */
            int x = (f - 1) * 4 + s;
            if (free_parent(vis, placed, empty, x)) out[n++] = (IMove){DOWN, (unsigned char)x, 0, 0};
        }
    }
    for (int c = 0; c < I->ncols; c++) {
        if (!I->h[c]) continue;
        int x = I->orig[c][I->h[c] - 1];
        if (x >= 48 && I->h[c] == 1) continue; /* a king alone where it was dealt: moving it renames columns */
        if (free_parent(vis, placed, empty, x)) out[n++] = (IMove){REVEAL, (unsigned char)c, 0, 0};
    }
    for (int q = 0; q < nr; q++) {
        int w = I->t.talon[r[q].j];
        if (I->found[w & 3] == w >> 2) out[n++] = (IMove){TALON_UP, 0, (unsigned char)r[q].rd, (short)r[q].j};
        if (free_parent(vis, placed, empty, w)) out[n++] = (IMove){TALON_DOWN, 0, (unsigned char)r[q].rd, (short)r[q].j};
    }
    return n;
}

static void image_play(Img *I, const IMove *m, IFrame *f) {
    int x;
    switch (m->kind) {
    case UP:
        x = m->a;
        I->found[x & 3]++;
        I->left--;
        f->u0 = -1;
        if (I->placed >> x & 1) {
            I->placed ^= 1ULL << x;
            return;
        }
        for (int c = 0; c < I->ncols; c++)
            if (I->h[c] && I->orig[c][I->h[c] - 1] == x) {
                I->h[c]--;
                f->u0 = c;
                return;
            }
        return;
    case DOWN:
        x = m->a;
        I->found[x & 3]--;
        I->left++;
        I->placed |= 1ULL << x;
        return;
    case REVEAL:
        I->h[m->a]--;
        I->placed |= 1ULL << I->orig[m->a][I->h[m->a]];
        return;
    default: {
        State *t = &I->t;
        int j = m->j, w = t->talon[j];
        f->u0 = t->p;
        f->u1 = t->passes;
        f->u2 = w;
        memmove(t->talon + j, t->talon + j + 1, (size_t)(t->tlen - j - 1));
        t->tlen--;
        I->talonmask ^= 1ULL << w;
        t->p = j;
        if (m->rd && t->passes > 0) t->passes--;
        if (m->kind == TALON_UP) {
            I->found[w & 3]++;
            I->left--;
        } else {
            I->placed |= 1ULL << w;
        }
    }
    }
}

static void image_undo(Img *I, const IMove *m, const IFrame *f) {
    int x;
    switch (m->kind) {
    case UP:
        x = m->a;
        I->found[x & 3]--;
        I->left++;
        if (f->u0 < 0)
            I->placed |= 1ULL << x;
        else
            I->h[f->u0]++;
        return;
    case DOWN:
        x = m->a;
        I->found[x & 3]++;
        I->left--;
        I->placed ^= 1ULL << x;
        return;
    case REVEAL:
        I->placed ^= 1ULL << I->orig[m->a][I->h[m->a]];
        I->h[m->a]++;
        return;
    default: {
        State *t = &I->t;
        int j = m->j, w = f->u2;
        if (m->kind == TALON_UP) {
            I->found[w & 3]--;
            I->left++;
        } else {
            I->placed ^= 1ULL << w;
        }
        memmove(t->talon + j + 1, t->talon + j, (size_t)(t->tlen - j));
        t->talon[j] = (unsigned char)w;
        t->tlen++;
        I->talonmask |= 1ULL << w;
        t->p = f->u0;
        t->passes = f->u1;
    }
    }
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* 1: new (stored), 0: already there, -1: the table is full. */
static int remember(Slot *tab, size_t mask, size_t *used, const Slot *k) {
    size_t i = (size_t)(mix(k->w0 ^ mix(k->w1)) & mask);
    while (tab[i].w0) {
        if (tab[i].w0 == k->w0 && tab[i].w1 == k->w1) return 0;
        i = (i + 1) & mask;
    }
    if (*used >= mask - mask / 4) return -1;
    tab[i] = *k;
    ++*used;
    return 1;
}

/* Doubles the array ``*p`` of ``*cap`` elements of ``size`` bytes; -1 (unchanged) when out of memory. */
static int grow(void **p, size_t *cap, size_t size) {
    void *q = realloc(*p, 2 * *cap * size);
    if (!q) return -1;
    *p = q;
    *cap *= 2;
    return 0;
}

#define IMAXMOVES (8 + MAXCOLS + 2 * MAXROUTES)

/* The search from the image ``I``, which it plays on and leaves as it found it (or anywhere, on an early end). */
static int image_search(Img *I, const Options *o, Outcome *out) {
    memset(out, 0, sizeof *out);
    out->status = ST_UNKNOWN;
    size_t slots = 1024;
    while ((double)(slots * 2) * sizeof(Slot) <= o->table_mb * 1048576.0 && slots < ((size_t)1 << 40)) slots *= 2;
    Slot *tab = calloc(slots, sizeof(Slot));
    size_t fcap = 256, mcap = 256 * IMAXMOVES, nf = 0, used = 0;
    IFrame *fr = malloc(fcap * sizeof *fr);
    IMove *mv = malloc(mcap * sizeof *mv);
    int rc = -1;
    if (!tab || !fr || !mv) goto done;
    double deadline = now() + o->seconds;
    long long cap = o->max_nodes < 0 ? (1LL << 62) : o->max_nodes;
    Slot k;
    image_key(I, &k);
    remember(tab, slots - 1, &used, &k);
    out->nodes = 1;
    rc = 0;
    if (I->left == 0) {
        out->status = ST_SOLVED;
        goto done;
    }
    fr[0] = (IFrame){0, image_moves(I, mv), 0, {0, 0, 0, 0}, 0, 0, 0};
    nf = 1;
    while (nf) {
        IFrame *f = &fr[nf - 1];
        if (f->i == f->n) {
            nf--;
            if (nf) image_undo(I, &f->in, f);
            continue;
        }
        IMove m = mv[f->start + f->i++];
        IFrame next = {f->start + f->n, 0, 0, m, 0, 0, 0};
        image_play(I, &m, &next);
        if (I->left == 0) { /* the line: every frame's move in, then m (as Move: kind, a, rd; a talon move's a is j) */
            out->status = ST_SOLVED;
            out->line = calloc(nf, sizeof(Move));
            if (!out->line) {
                rc = -1;
                goto done;
            }
            for (size_t q = 0; q < nf; q++) {
                const IMove *x = q + 1 < nf ? &fr[q + 1].in : &m;
                int a = x->kind >= TALON_UP ? x->j : x->a;
                out->line[q] = (Move){(signed char)x->kind, (signed char)a, -1, (signed char)x->rd, 0, 0, 0, 0};
            }
            out->nline = nf;
            goto done;
        }
        image_key(I, &k);
        int r = remember(tab, slots - 1, &used, &k);
        if (r <= 0) {
            image_undo(I, &m, &next);
            if (r < 0) goto done; /* unknown: the table is full */
            continue;
        }
        if (++out->nodes >= cap || (out->nodes % CHECK_EVERY == 0 && now() > deadline)) goto done;
        if ((nf == fcap && grow((void **)&fr, &fcap, sizeof *fr) < 0) ||
            (next.start + IMAXMOVES > mcap && grow((void **)&mv, &mcap, sizeof *mv) < 0)) {
            rc = -1;
            goto done;
        }
        next.n = image_moves(I, mv + next.start);
        fr[nf++] = next;
        if ((long long)nf > out->depth) out->depth = nf;
    }
    out->status = ST_UNSOLVABLE;
done:
    out->stored = (long long)used;
    out->slots = (long long)slots;
    free(tab);
    free(fr);
    free(mv);
    return rc;
}

int image_position(const State *s, const Options *o, Outcome *out) {
    Img *I = malloc(sizeof *I);
    if (!I) return -1;
    int r = image_load(s, I) < 0 ? -2 : image_search(I, o, out);
    free(I);
    return r;
}
