/* The stock-step beam (beam.py). */
#include <stdlib.h>
#include <string.h>

#include "search.h"

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

void beam_init(void) {
    for (int i = 1; i < (1 << 13); i++) POP13[i] = (unsigned char)(POP13[i >> 1] + (i & 1));
}

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
    if (nb) memcpy(c->line, base, nb * sizeof(Move)); /* never from NULL */
    if (np) memcpy(c->line + nb, path, np * sizeof(Move));
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

/* A level's closures share these: the level's table and heap, and the line to the state. */
typedef struct {
    SeenSet *seen;
    Heap *h;
    const Move *base;
    size_t nb;
} Level;

/* Enter a closure position (safe moves first). 1: won, 0: seen this level (undone), 2: opened. */
static int beam_enter(Search *S, void *ctx) {
    Level *l = ctx;
    State *s = S->s;
    int safe = play_safe(S);
    if (safe < 0) return -1;
    if (s->left == 0) return 1;
    uint64_t lo, hi;
    key_of(s, &lo, &hi);
    if (seen_put(l->seen, lo, hi)) {
        for (int i = 0; i < safe; i++) pop_move(S);
        return 0;
    }
    if (heap_offer(l->h, s, l->base, l->nb, PATH(S), S->path.n) < 0) {
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

/* The positions reachable from the state without a draw, depth first (``descend``), at most
 * ``cap`` moves: each offered to the level's heap. 1: won (the line is base + S->path), 0:
 * done, 2: out of budget, -1: no memory. */
static int beam_closure(Search *S, Level *l, long long cap, long long node_cap, double deadline) {
    long long stop = S->nodes + cap, depth = 0;
    int r = beam_enter(S, l);
    return r != 2 ? (r == 0 ? 0 : r) : descend(S, beam_enter, l, stop, node_cap, deadline, &depth);
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
            Level level = {seen, &h, beam[b].line, beam[b].n};
            r = beam_closure(S, &level, cap, node_cap, deadline);
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
                if (beam[b].n) memcpy(*win, beam[b].line, beam[b].n * sizeof(Move));
                if (S->path.n) memcpy(*win + beam[b].n, PATH(S), S->path.n * sizeof(Move));
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

/* One beam from ``root`` (not changed), of o->width states a level, o->cap moves a closure. */
int beam_position(const State *root, const Options *o, Outcome *out) {
    memset(out, 0, sizeof *out);
    SeenSet seen = {NULL, 0, 0};
    State *s = malloc(sizeof(State));
    Search *S = s ? search_new(s) : NULL;
    int status = -1;
    size_t slots = 64; /* a level enters at most width x (cap + 1) positions: room for twice that */
    while (slots < 2 * (size_t)o->width * (size_t)(o->cap + 1)) slots *= 2;
    if (S) seen.e = calloc(slots, sizeof(Seen));
    seen.mask = slots - 1;
    if (seen.e) {
        long long node_cap = o->max_nodes >= 0 ? o->max_nodes : (1LL << 62);
        status = beam_run(S, &seen, root, o->width, o->cap, node_cap, o->seconds, &out->line, &out->nline, &out->best,
                          &out->nbest);
    }
    if (status >= 0) {
        out->status = status;
        out->nodes = S->nodes;
        out->best_left = S->best_left;
    }
    if (status < 0) outcome_free(out);
    free(seen.e);
    search_free(S);
    free(s);
    return status < 0 ? -1 : 0;
}
