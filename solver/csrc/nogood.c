/* Learned deadlocks (nogoods): when the complete search closes a subtree, the position at its
 * root is projected onto the cards the subtree touched, closed upward (every card of a suit from
 * the lowest touched rank up, both copies) and under "may be built on"; the cards below are put
 * on the foundations. The projection is a real position of the same game that allows every line
 * of the position (docs/solver-proofs.md, "Learned deadlocks"), so when its own complete search
 * ends lost, every position with the same projection is lost: its key is stored, and every
 * position the search enters is looked up under each projection stored.
 *
 * The subtree's closing proves nothing by itself (a table hit on the current path closes
 * subtrees that can be won): only the projection's own search does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

#define NG_MAXPIDS 64

struct Nogoods {
    uint64_t *k; /* pairs (lo ^ the projection's mix, hi); hi 0: empty */
    size_t cap, n;
    int pid[NG_MAXPIDS], npid, maxpid;
    uint64_t pending; /* cards moved since the last position entered (push_move) */
    long long min_nodes, mul, floor;
    long long kept_sum, removed_sum, lkept_sum, lremoved_sum, tops, charge;
    long long closes, tries, learned, same, nopid, proof_nodes, won, open, hits, mismatch;
};

static _Thread_local int inner; /* a projection's own search learns nothing */

static uint64_t pid_mix(int pid) { return (uint64_t)(pid + 1) * 0x9E3779B97F4A7C15ULL; }

Nogoods *nogoods_new(const State *s) {
    const char *env = getenv("SOLVER_NOGOODS");
    if (inner || !env || !*env || !s->two || s->klondike) return NULL;
    Nogoods *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->min_nodes = 100;
    g->mul = 2;
    g->floor = 1000;
    g->maxpid = 16;
    g->tops = g->charge = 1;
    sscanf(env, "%lld,%lld,%d,%lld,%lld,%lld", &g->min_nodes, &g->mul, &g->maxpid, &g->floor, &g->tops, &g->charge);
    if (g->maxpid > NG_MAXPIDS) g->maxpid = NG_MAXPIDS;
    g->cap = 1 << 12;
    g->k = calloc(2 * g->cap, sizeof(uint64_t));
    if (!g->k) {
        free(g);
        return NULL;
    }
    return g;
}

void nogoods_free(Nogoods *g) {
    if (!g) return;
    fprintf(stderr,
            "nogoods: closes %lld tries %lld learned %lld (projection = position %lld, no pid slot %lld; "
            "projection won %lld, open %lld) proof nodes %lld hits %lld pids %d mismatch %lld; kept/removed tried %.1f/%.1f learned %.1f/%.1f\n",
            g->closes, g->tries, g->learned, g->same, g->nopid, g->won, g->open, g->proof_nodes, g->hits, g->npid,
            g->mismatch, g->tries ? (double)g->kept_sum / g->tries : 0.0, g->tries ? (double)g->removed_sum / g->tries : 0.0,
            g->learned ? (double)g->lkept_sum / g->learned : 0.0, g->learned ? (double)g->lremoved_sum / g->learned : 0.0);
    free(g->k);
    free(g);
}

static int ng_has(const Nogoods *g, uint64_t lo, uint64_t hi) {
    size_t i = lo & (g->cap - 1);
    while (g->k[2 * i + 1]) {
        if (g->k[2 * i] == lo && g->k[2 * i + 1] == hi) return 1;
        i = (i + 1) & (g->cap - 1);
    }
    return 0;
}

static void ng_put(Nogoods *g, uint64_t lo, uint64_t hi) {
    if (ng_has(g, lo, hi)) return;
    if (2 * (g->n + 1) > g->cap) {
        size_t cap = 2 * g->cap;
        uint64_t *k = calloc(2 * cap, sizeof(uint64_t));
        if (!k) return; /* (a nogood not kept loses nothing) */
        uint64_t *old = g->k;
        size_t oc = g->cap;
        g->k = k;
        g->cap = cap;
        for (size_t i = 0; i < oc; i++)
            if (old[2 * i + 1]) {
                size_t j = old[2 * i] & (cap - 1);
                while (k[2 * j + 1]) j = (j + 1) & (cap - 1);
                k[2 * j] = old[2 * i];
                k[2 * j + 1] = old[2 * i + 1];
            }
        free(old);
    }
    size_t i = lo & (g->cap - 1);
    while (g->k[2 * i + 1]) i = (i + 1) & (g->cap - 1);
    g->k[2 * i] = lo;
    g->k[2 * i + 1] = hi;
    g->n++;
}

/* The projection's cards (bit c: card c, both copies) and foundations, from its lowest rank a suit (pid). */
static uint64_t projection(const State *s, int pid, int *found) {
    uint64_t keep = 0;
    for (int su = 0; su < 4; su++) {
        int t = pid >> (4 * su) & 15;
        for (int r = t; r <= KING; r++) keep |= 1ULL << (r * 4 + su);
        for (int k = 0; k < 2; k++) found[2 * su + k] = s->found[2 * su + k] > t ? s->found[2 * su + k] : t;
    }
    return keep;
}

/* The cards a move moves, before it is played. */
uint64_t moved_cards(const State *s, const Move *m) {
    switch (m->kind) {
    case T2F: return 1ULL << s->col[m->a][s->len[m->a] - 1];
    case T2T: {
        uint64_t out = 0;
        for (int k = s->len[m->a] - m->n; k < s->len[m->a]; k++) out |= 1ULL << s->col[m->a][k];
        return out;
    }
    case W2F:
    case W2T: return 1ULL << s->talon[m->j];
    default: return 1ULL << ((s->found[m->a] - 1) * 4 + (s->two ? m->a >> 1 : m->a)); /* F2T */
    }
}

void nogood_note(Nogoods *g, const State *s, const Move *m) { g->pending |= moved_cards(s, m); }

/* A frame just opened for the position entered: what it touched so far (the moves that led here
 * since the last position entered, the columns' and the waste's top cards). */
void nogood_opened(Search *S, uint64_t also) {
    Nogoods *g = S->ng;
    const State *s = S->s;
    uint64_t t = g->pending | also;
    g->pending = 0;
    if (g->tops) {
        for (int i = 0; i < s->ncols; i++)
            if (s->len[i]) t |= 1ULL << s->col[i][s->len[i] - 1];
        if (s->p > 0) t |= 1ULL << s->talon[s->p - 1];
    }
    FRAMES(S)[S->frames.n - 1].touched |= t;
    FRAMES(S)[S->frames.n - 1].proof0 = g->proof_nodes;
}

void nogood_pruned(Nogoods *g) { g->pending = 0; }

/* A stored nogood matches the position: it is lost. The projection's cards, or 0. */
uint64_t nogood_hit(Search *S) {
    Nogoods *g = S->ng;
    int found[8];
    for (int i = 0; i < g->npid; i++) {
        uint64_t keep = projection(S->s, g->pid[i], found), lo, hi;
        key_projected(S->s, keep, found, &lo, &hi);
        if (ng_has(g, lo ^ pid_mix(g->pid[i]), hi)) {
            g->hits++;
            return keep;
        }
    }
    return 0;
}

/* The frame ``fr`` closed (every move tried, no win); the position is the one it opened on. */
void nogood_close(Search *S, const Frame *fr) {
    Nogoods *g = S->ng;
    const State *s = S->s;
    if (S->frames.n) FRAMES(S)[S->frames.n - 1].touched |= fr->touched;
    long long sub = S->nodes - fr->nodes0 - (g->charge ? g->proof_nodes - fr->proof0 : 0); /* the search's own nodes */
    if (!S->frames.n || !fr->nmoves) return;
    g->closes++;
    if (sub < g->min_nodes) return;
    int t[4];
    for (int su = 0; su < 4; su++) t[su] = 13;
    for (int c = 0; c < 52; c++)
        if (fr->touched >> c & 1 && (c >> 2) < t[c & 3]) t[c & 3] = c >> 2;
    if (!s->suit_build) /* closed under "may be built on": (su, r) builds on the other colour's r + 1 */
        for (int changed = 1; changed;) {
            changed = 0;
            for (int su = 0; su < 4; su++)
                for (int o = 0; o < 4; o++)
                    if (RED[o] != RED[su] && t[su] < KING && t[o] > t[su] + 1) {
                        t[o] = t[su] + 1;
                        changed = 1;
                    }
        }
    int pid = t[0] | t[1] << 4 | t[2] << 8 | t[3] << 12;
    int found[8];
    uint64_t keep = projection(s, pid, found);
    int removed = 0;
    for (int i = 0; i < s->ncols; i++)
        for (int k = 0; k < s->len[i]; k++) removed += !(keep >> s->col[i][k] & 1);
    for (int i = 0; i < s->tlen; i++) removed += !(keep >> s->talon[i] & 1);
    if (!removed) {
        g->same++;
        return;
    }
    int slot = -1;
    for (int i = 0; i < g->npid; i++)
        if (g->pid[i] == pid) slot = i;
    if (slot < 0 && g->npid >= g->maxpid) {
        g->nopid++;
        return;
    }
    g->tries++;
    g->removed_sum += removed;
    g->kept_sum += s->left - removed;
    State *x = malloc(sizeof(State));
    if (!x) return;
    memcpy(x, s, sizeof(State));
    x->left = 0;
    for (int i = 0; i < s->ncols; i++) {
        x->len[i] = 0;
        for (int k = 0; k < s->len[i]; k++)
            if (keep >> s->col[i][k] & 1) x->col[i][x->len[i]++] = s->col[i][k];
        x->left += x->len[i];
    }
    x->tlen = x->p = 0;
    for (int i = 0; i < s->tlen; i++)
        if (keep >> s->talon[i] & 1) {
            x->talon[x->tlen++] = s->talon[i];
            if (i < s->p) x->p++;
        }
    x->left += x->tlen;
    memcpy(x->found, found, sizeof found);
    state_prepare(x);
    uint64_t lo, hi, plo, phi;
    key_of(x, &lo, &hi);
    key_projected(s, keep, found, &plo, &phi);
    if (lo != plo || hi != phi) g->mismatch++;
    Options o;
    memset(&o, 0, sizeof o);
    o.seconds = 1e9;
    o.table_mb = 64;
    o.max_nodes = g->floor + g->mul * sub;
    o.prune = S->prune;
    o.dominate = S->dominate;
    Outcome out;
    inner = 1;
    int r = search_position(x, &o, &out);
    inner = 0;
    free(x);
    if (r < 0) return;
    g->proof_nodes += out.nodes;
    if (g->charge) S->nodes += out.nodes; /* the proof's nodes count against the search's budget */
    if (out.status == ST_UNSOLVABLE) {
        if (slot < 0) g->pid[slot = g->npid++] = pid;
        ng_put(g, plo ^ pid_mix(pid), phi);
        g->learned++;
        g->lremoved_sum += removed;
        g->lkept_sum += s->left - removed;
    } else if (out.status == ST_SOLVED) {
        g->won++;
    } else {
        g->open++;
    }
    outcome_free(&out);
}
