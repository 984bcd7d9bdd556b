/* Sleep sets over quiet moves: the complete search's partial-order reduction
 * (docs/solver-proofs.md, "Sleep sets"; docs/solver.md, "The compiled core").
 *
 * A move of a position is *quiet* when it is one of these and no safe move follows it:
 *   - a column's top run onto a non-empty column, not a twin shuffle (the card under the run is
 *     not the target's top);
 *   - a talon card onto a non-empty column;
 *   - a column's top card, or a talon card, up.
 * Its *places*: the columns it takes from or lays on, the talon (a talon card), the suit (a card
 * up). Two quiet moves with no place in common commute (Lemma Z): either leaves the other
 * generated with the same meaning, and both orders end in the same position.
 *
 * A sleep set is a set of bits, so it fits a table entry (search.c keeps it in the entry's
 * spare bits): bit a < WASTE_BIT stands for every quiet move from column a (onto a column or up)
 * and every quiet talon move onto column a; WASTE_BIT for every quiet move of a talon card up.
 * Only the two-deck games (nothing face down, no card coming back down).
 */
#include "search.h"

#define WASTE_BIT (SLEEP_BITS_N - 1)
#define MAXQ (4 * MAXCOL + MAXROUTES + 1) /* a bit's quiet moves: runs x targets, talon cards, one up */

int sleep_applies(const State *s) { return !s->klondike; }

/* Does a safe move follow ``m`` in ``s``? It is played, looked at and taken back. */
static int followed(State *s, const Move *m) {
    Hist h;
    Move t;
    play(s, m, &h);
    int r = safe_move(s, &t);
    undo(s, m, &h);
    return r;
}

/* Would the waste's new top be safe once talon card ``j`` leaves (draw 1: it is the card under j)? */
static int bares_safe(const State *s, int j, uint64_t safe) { return s->draw == 1 && j > 0 && ((safe >> s->talon[j - 1]) & 1); }

static int is_shuffle(const State *s, const Move *m) {
    int rest = s->len[m->a] - m->n;
    return rest && s->col[m->a][rest - 1] == s->col[m->b][s->len[m->b] - 1];
}

int sleep_quiet(State *s, const Move *m) {
    switch (m->kind) {
    case T2F:
    case W2F:
        return !followed(s, m);
    case T2T: { /* the cards it lays were a top already; what it uncovers is what matters */
        if (!s->len[m->b] || is_shuffle(s, m)) return 0;
        int a = m->a, rest = s->len[a] - m->n;
        if (s->down[a] && rest == s->down[a]) return 0;
        return !(rest && ((safe_mask(s) >> s->col[a][rest - 1]) & 1));
    }
    case W2T: {
        if (!s->len[m->b]) return 0;
        uint64_t safe = safe_mask(s);
        return !((safe >> s->talon[m->j]) & 1) && !bares_safe(s, m->j, safe);
    }
    default:
        return 0;
    }
}

/* The sleep set bit a quiet move belongs to (SLEEP_BITS_N: none, a column past the bits). */
static int owner(const Move *m) {
    int a = m->kind == T2T || m->kind == T2F ? m->a : m->kind == W2T ? m->b : WASTE_BIT;
    return m->kind != W2F && a >= WASTE_BIT ? SLEEP_BITS_N : a;
}

int sleep_asleep(State *s, const Move *m, unsigned bits) {
    int a = owner(m);
    return a < SLEEP_BITS_N && ((bits >> a) & 1) && sleep_quiet(s, m);
}

/* The quiet moves of ``s`` that bit ``a`` stands for (each one ``gen_moves`` makes); how many. */
static int quiet_of(State *s, int a, const Route *routes, int nroutes, Move *out) {
    int n = 0;
    if (a == WASTE_BIT) {
        for (int r = 0; r < nroutes; r++) {
            Move m = {W2F, -1, -1, (signed char)routes[r].rd, 1, (short)routes[r].j, (short)routes[r].k1, (short)routes[r].k2};
            if (found_slot(s, s->talon[routes[r].j]) >= 0 && !followed(s, &m)) out[n++] = m;
        }
        return n;
    }
    int size = s->len[a];
    if (!size) return 0;
    const unsigned char *col = s->col[a];
    uint64_t safe = safe_mask(s);
    int top = col[size - 1];
    if (found_slot(s, top) >= 0) {
        Move m = {T2F, (signed char)a, -1, 0, 1, -1, 0, 0};
        if (!followed(s, &m)) out[n++] = m;
    }
    int longest = 1;
    if (s->runs)
        while (size - longest - 1 >= s->down[a] && s->builds[col[size - longest - 1] * 52 + col[size - longest]]) longest++;
    for (int k = 1; k <= longest; k++) {
        int rest = size - k, base = col[size - k];
        if (rest && ((safe >> col[rest - 1]) & 1)) continue; /* it would uncover a safe card */
        if (s->down[a] && rest == s->down[a]) continue;      /* it would turn a card */
        for (int q = 0; q < s->nparents[base]; q++) {
            int parent = s->parents[base][q];
            for (int b = 0; b < s->ncols; b++) {
                if (b == a || !s->len[b] || s->col[b][s->len[b] - 1] != parent) continue;
                if (rest && col[rest - 1] == parent) continue; /* a twin shuffle */
                out[n++] = (Move){T2T, (signed char)a, (signed char)b, 0, (short)k, -1, 0, 0};
            }
        }
    }
    for (int r = 0; r < nroutes; r++) {
        int card = s->talon[routes[r].j];
        if (((safe >> card) & 1) || bares_safe(s, routes[r].j, safe)) continue;
        for (int q = 0; q < s->nparents[card]; q++)
            if (s->parents[card][q] == top)
                out[n++] = (Move){W2T, -1, (signed char)a, (signed char)routes[r].rd, 1, (short)routes[r].j,
                                  (short)routes[r].k1, (short)routes[r].k2};
    }
    return n;
}

static int same(const Move *x, const Move *y) {
    return x->kind == y->kind && x->a == y->a && x->b == y->b && x->n == y->n && x->j == y->j && x->k1 == y->k1 &&
           x->rd == y->rd && x->k2 == y->k2;
}

/* A quiet move's places: its columns (-1: none), whether it takes a talon card, its suit up (-1: none). */
typedef struct {
    int col[2], talon, suit;
} Places;

static Places places(const State *s, const Move *m) {
    Places p = {{-1, -1}, 0, -1};
    switch (m->kind) {
    case T2T:
        p.col[0] = m->a, p.col[1] = m->b;
        break;
    case W2T:
        p.col[0] = m->b, p.talon = 1;
        break;
    case T2F:
        p.col[0] = m->a, p.suit = s->col[m->a][s->len[m->a] - 1] & 3;
        break;
    default:
        p.talon = 1, p.suit = s->talon[m->j] & 3;
    }
    return p;
}

static int apart(const Places *x, const Places *y) {
    if ((x->talon && y->talon) || (x->suit >= 0 && x->suit == y->suit)) return 0;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            if (x->col[i] >= 0 && x->col[i] == y->col[k]) return 0;
    return 1;
}

/* The candidates' quiet moves before ``e``, which sleep_after compares with those after it. */
static __thread Move before_q[SLEEP_BITS_N][MAXQ];
static __thread int before_n[SLEEP_BITS_N];

/* Before the quiet move ``e`` is played from ``s`` (searched with the sleep set ``bits``, ``tried``:
 * the ``ntried`` moves tried before e): the bits whose quiet moves (at least one) all keep apart
 * from e and were asleep or tried before, the candidates for the next position's sleep set. */
unsigned sleep_before(State *s, const Move *e, unsigned bits, const Move *tried, int ntried) {
    Places pe = places(s, e);
    Route routes[MAXROUTES];
    int nroutes = stock_routes(s, routes), ncols = s->ncols < WASTE_BIT ? s->ncols : WASTE_BIT;
    unsigned out = 0;
    for (int a = 0; a < SLEEP_BITS_N; a++) {
        if (a >= ncols && a != WASTE_BIT) continue;
        if (a == pe.col[0] || a == pe.col[1] || (a == WASTE_BIT && pe.talon)) continue;
        Move *q = before_q[a];
        int n = quiet_of(s, a, routes, nroutes, q), ok = n > 0;
        for (int i = 0; i < n && ok; i++) {
            Places pz = places(s, &q[i]);
            if (!apart(&pz, &pe)) {
                ok = 0;
            } else if (!((bits >> a) & 1)) {
                ok = 0;
                for (int t = 0; t < ntried && !ok; t++) ok = same(&tried[t], &q[i]);
            }
        }
        before_n[a] = n;
        if (ok) out |= 1u << a;
    }
    return out;
}

/* After ``e`` (played, nothing followed it): the candidates whose quiet moves are the same as
 * before it, the sleep set of the position ``c`` it led to. */
unsigned sleep_after(State *c, unsigned candidates) {
    Route routes[MAXROUTES];
    int nroutes = stock_routes(c, routes);
    Move q[MAXQ];
    unsigned out = 0;
    for (int a = 0; a < SLEEP_BITS_N; a++) {
        if (!((candidates >> a) & 1)) continue;
        int n = quiet_of(c, a, routes, nroutes, q), ok = n == before_n[a];
        for (int i = 0; i < n && ok; i++) {
            ok = 0;
            for (int k = 0; k < n && !ok; k++) ok = same(&q[i], &before_q[a][k]);
        }
        if (ok) out |= 1u << a;
    }
    return out;
}
