/* The transposition table and the depth-first loop (search.py). */
#define _DEFAULT_SOURCE /* clock_gettime, MAP_ANONYMOUS, madvise */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "search.h"

/* ---- transposition table ------------------------------------------------------------- */



/* The bound's buckets (a power of two) are allocated at once, zeroed, but the table uses only
 * its first ones: FIRST_BUCKETS, doubled in place by ``table_room`` whenever a bucket is full, up
 * to all of them. The memory past the buckets in use is never written, so a search of a few
 * thousand nodes, most of Klondike's, has the kernel map (and zero) a few pages, not a fresh page
 * of the 256 MiB bound for nearly every position it enters. */
#define FIRST_BUCKETS 1024

/* The table's memory: an anonymous mapping (zero pages the kernel hands out as they are first
 * touched, as calloc's large blocks are), page-aligned, so a bucket (256 bytes) spans four cache
 * lines, not five. Past its first HUGE_FROM bytes the kernel is asked for 2 MiB pages: a probe of a
 * large table then lands in a page the TLB already maps far more often (most of a large search's
 * time goes on the probe's memory access), while a search of a few thousand nodes, which never
 * gets past the first bytes, still has its few 4 KiB pages zeroed and no more. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_FROM (2 * HUGE_PAGE)

static size_t table_bytes(size_t buckets) { return buckets * BUCKET * sizeof(Entry); }

static int table_init(Table *t, size_t buckets) {
    memset(t, 0, sizeof *t);
    size_t bytes = table_bytes(buckets);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
#ifdef MADV_HUGEPAGE
    if (bytes > HUGE_FROM) madvise((char *)p + HUGE_FROM, bytes - HUGE_FROM, MADV_HUGEPAGE); /* a hint */
#endif
    t->e = p;
    t->mask = (buckets < FIRST_BUCKETS ? buckets : FIRST_BUCKETS) - 1;
    t->limit = buckets - 1;
    return 0;
}

static void table_free(Table *t) {
    if (t->e) munmap(t->e, table_bytes(t->limit + 1)); /* (a Search never given a table: all zero) */
    free(t->over);
}

/* A bucket's entries fill it from its first slot and never leave (``table_put`` takes the first
 * empty slot or replaces an entry in place, ``table_room`` keeps each half's entries first), so
 * the first empty slot ends the search; and a key in the overflow list has a full bucket. */
static inline int entry_is(const Entry *e, uint64_t lo, uint64_t hi) { return e->hi == hi && e->lo == (uint32_t)lo; }

static int table_has(const Table *t, uint64_t lo, uint64_t hi) {
    const Entry *b = t->e + (lo & t->mask) * BUCKET;
    for (int i = 0; i < BUCKET; i++) {
        if (!b[i].hi) return 0;
        if (entry_is(&b[i], lo, hi)) return 1;
    }
    for (size_t i = 0; i < t->nover; i++)
        if (entry_is(&t->over[i], lo, hi)) return 1;
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
        if (!(b[i].work & PIN) && (victim < 0 || b[i].work < b[victim].work)) victim = i;
    }
    if (victim >= 0) {
        if (b[victim].hi)
            t->replaced++;
        else
            t->stored++;
        b[victim] = (Entry){hi, (uint32_t)lo, PIN};
        return (long long)(base + victim);
    }
    if (t->nover == t->capover) {
        size_t cap = t->capover ? 2 * t->capover : 16;
        Entry *n = realloc(t->over, cap * sizeof(Entry));
        if (!n) return -(1LL << 62);
        t->over = n;
        t->capover = cap;
    }
    t->over[t->nover++] = (Entry){hi, (uint32_t)lo, PIN};
    return -1 - (long long)(t->nover - 1);
}

/* Where the entry in ``slot`` goes when bucket b of ``half`` buckets splits into b and b + half. */
static size_t split_slot(const Entry *e, size_t slot, size_t half) {
    size_t base = slot - slot % BUCKET;
    uint64_t side = e[slot].lo & half;
    size_t k = 0;
    for (size_t i = base; i < slot; i++) k += (e[i].lo & half) == side;
    return (side ? base + half * BUCKET : base) + k;
}

/* Before ``lo`` is put: while its bucket is full and the bound allows, double the buckets in
 * use. Until they are all in use, then, no entry is ever replaced, and a bucket holds the keys
 * that reach it in the order they came, as in a table of the bound's size from the start: the
 * search is node for node the same. Doubling splits bucket b into b and b + half, each keeping
 * its entries' order (a bucket fills from its first slot and never empties); the open frames'
 * pinned slots move with their entries. */
static void table_room(Search *S, uint64_t lo) {
    Table *t = &S->table;
    while (t->mask < t->limit && t->e[(lo & t->mask) * BUCKET + BUCKET - 1].hi) {
        size_t half = t->mask + 1;
        for (size_t f = 0; f < S->frames.n; f++) {
            Frame *fr = &FRAMES(S)[f];
            if (fr->slot >= 0) fr->slot = (long long)split_slot(t->e, (size_t)fr->slot, half);
            /* (an overflow slot, < 0, exists only once every bucket is in use) */
        }
        for (size_t b = 0; b < half; b++) {
            Entry *from = t->e + b * BUCKET, *to = t->e + (b + half) * BUCKET; /* never written yet */
            int kept = 0, moved = 0, k = 0;
            for (; k < BUCKET && from[k].hi; k++) {
                if (from[k].lo & half)
                    to[moved++] = from[k];
                else
                    from[kept++] = from[k];
            }
            for (int i = kept; i < k; i++) from[i] = (Entry){0};
        }
        t->mask = 2 * t->mask + 1;
    }
}

static void table_unpin(Table *t, long long slot, long long work) {
    if (slot >= 0) {
        t->e[slot].work = work >= (long long)PIN ? PIN - 1 : (uint32_t)work; /* unpinned */
    } else {
        t->nover--; /* path order: the last overflow entry is this frame's */
    }
}
/* ---- the search loop (search.py) ------------------------------------------------------- */



void *vec_push(Vec *v) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 256;
        void *q = realloc(v->p, cap * v->size);
        if (!q) return NULL;
        v->p = q;
        v->cap = cap;
    }
    return (char *)v->p + v->size * v->n++;
}

int vec_reserve(Vec *v, size_t extra) {
    while (v->n + extra > v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 256;
        void *q = realloc(v->p, cap * v->size);
        if (!q) return -1;
        v->p = q;
        v->cap = cap;
    }
    return 0;
}

double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}



int push_move(Search *S, const Move *m) {
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

void pop_move(Search *S) {
    S->path.n--;
    S->hist.n--;
    undo(S->s, &PATH(S)[S->path.n], &HIST(S)[S->hist.n]);
}

/* Play the safe moves there are; how many, or -1: no memory. */
int play_safe(Search *S) {
    int safe = 0;
    Move m;
    while (safe_move(S->s, &m)) {
        if (push_move(S, &m) < 0) return -1;
        safe++;
    }
    return safe;
}

/* Open a frame over the first ``n`` moves of ``S->ml``. 2: opened, -1: no memory. */
int open_frame(Search *S, int n, int safe, long long slot) {
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
    if (n) memcpy(MOVES(S) + S->moves.n, S->ml.m, (size_t)n * sizeof(Move));
    S->moves.n += (size_t)n;
    return 2;
}

/* dead weight in the waste: some position no better than this one (reference/dead_weight.py) is in the table. */
static int dominated(const Search *S) {
    uint64_t lo[MAXTALON + 1], hi[MAXTALON + 1];
    int n = dominator_keys(S->s, lo, hi);
    for (int i = 0; i < n; i++)
        if (table_has(&S->table, lo[i], hi[i])) return 1;
    return 0;
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
            if (S->path.n) memcpy(S->best.p, S->path.p, S->path.n * sizeof(Move)); /* never from NULL */
            S->best.n = S->path.n;
        }
    }
    if (s->left == 0) return 1;
    uint64_t lo, hi;
    key_of(s, &lo, &hi);
    if (table_has(&S->table, lo, hi) || (S->dominate && dominated(S))) {
        for (int i = 0; i < safe; i++) pop_move(S);
        return 0;
    }
    table_room(S, lo);
    long long slot = table_put(&S->table, lo, hi);
    if (slot == -(1LL << 62)) {
        S->nomem = 1;
        return -1;
    }
    if (S->prune && never_all_up(s)) return open_frame(S, 0, safe, slot); /* never-all-up: lost, no moves */
    gen_moves(s, &S->ml, &S->rng);
    return open_frame(S, S->ml.n, safe, slot);
}


static int enter_step(Search *S, void *ctx) { return enter(S); }

/* The search step, the search's and the beam closures' (beam.c): from the frames open, play
 * each frame's next move and ``enter`` the position, until a win (1), no frame is left or
 * ``stop`` nodes are spent (0, the frames closed), or the budget is (2: ``cap`` nodes or the
 * deadline); -1: no memory. ``depth``: the most frames open at once. */
int descend(Search *S, Enter enter, void *ctx, long long stop, long long cap, double deadline, long long *depth) {
    while (S->frames.n) {
        Frame *f = &FRAMES(S)[S->frames.n - 1];
        if (f->next < f->nmoves && S->nodes < stop) {
            Move m = MOVES(S)[f->mstart + f->next];
            f->next++;
            if (push_move(S, &m) < 0) return -1;
            S->nodes++;
            if ((S->nodes % CHECK_EVERY == 0 && now() > deadline) || S->nodes >= cap) return 2;
            int r = enter(S, ctx);
            if (r < 0 || r == 1) return r;
            if (r == 0)
                pop_move(S);
            else if ((long long)S->frames.n > *depth)
                *depth = (long long)S->frames.n;
        } else {
            Frame fr = *f;
            S->frames.n--;
            S->moves.n = (size_t)fr.mstart;
            if (S->table.e) table_unpin(&S->table, fr.slot, S->nodes - fr.nodes0); /* the beam has none */
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
    if (lost(S->s)) { /* the root's frozen cards, as reference/searches.py: a proof, whatever the mode */
        *depth_out = 0;
        S->best_left = 1 << 30; /* search.py returns no figures with this verdict */
        S->best.n = 0;
        return ST_UNSOLVABLE;
    }
    r = descend(S, enter_step, NULL, 1LL << 62, cap, deadline, &depth);
    *depth_out = depth;
    if (r < 0) return -1;
    if (r == 1) {
        if ((long long)S->frames.n > depth) *depth_out = (long long)S->frames.n;
        return ST_SOLVED;
    }
    if (r == 2) return ST_UNKNOWN;
    return S->rng.on ? ST_UNKNOWN : ST_UNSOLVABLE; /* a jittered restart proves nothing */
}

static size_t table_buckets(double table_mb, long long max_nodes) {
    double bytes = table_mb * 1048576.0;
    size_t want = 64;
    /* (an entry keeps 32 bits of the key's low word, so at most 2^32 buckets) */
    while ((double)table_bytes(want * 2) <= bytes && want < ((size_t)1 << 32)) want *= 2;
    if (max_nodes > 0) { /* room for every position a capped search can enter, twice over */
        size_t need = 64;
        while ((long long)(need * BUCKET) < 2 * (max_nodes + 2) && need < want) need *= 2;
        if (need < want) want = need;
    }
    return want;
}


/* Free a Search and all it holds (its table, when it has one: a calloc'd one is empty). */
void search_free(Search *S) {
    if (!S) return;
    table_free(&S->table);
    free(S->path.p);
    free(S->hist.p);
    free(S->frames.p);
    free(S->moves.p);
    free(S->best.p);
    free(S);
}

Search *search_new(State *s) {
    Search *S = calloc(1, sizeof(Search));
    if (!S) return NULL;
    S->s = s;
    S->path.size = S->best.size = S->moves.size = sizeof(Move);
    S->hist.size = sizeof(Hist);
    S->frames.size = sizeof(Frame);
    S->best_left = 1 << 30;
    return S;
}

static Move *copy_moves(const Move *m, size_t n) {
    Move *out = malloc(n * sizeof(Move) + 1);
    if (out && n) memcpy(out, m, n * sizeof(Move));
    return out;
}

void outcome_free(Outcome *out) {
    free(out->line);
    free(out->best);
    out->line = out->best = NULL;
}

size_t entry_bytes(void) { return sizeof(Entry); }

/* One depth-first search from ``root`` (not changed): complete, or (o->rng.on) a restart. */
int search_position(const State *root, const Options *o, Outcome *out) {
    memset(out, 0, sizeof *out);
    State *s = malloc(sizeof(State));
    Search *S = s ? search_new(s) : NULL;
    int status = -1;
    if (!S) goto done;
    memcpy(s, root, sizeof(State));
    S->keep_best = o->keep_best;
    S->prune = o->prune;
    S->dominate = o->dominate && s->two && !s->klondike && s->draw == 1 && s->p_in_key; /* reference.dead_weight.applies */
    S->rng = o->rng;
    size_t buckets = table_buckets(o->table_mb, o->max_nodes);
    if (table_init(&S->table, buckets) < 0) goto done;
    status = run(S, o->seconds, o->max_nodes >= 0 ? o->max_nodes : (1LL << 62), &out->depth);
    if (status < 0) goto done;
    out->status = status;
    out->nodes = S->nodes;
    out->replaced = S->table.replaced;
    out->best_left = S->best_left;
    out->stored = S->table.stored;
    out->slots = (long long)((S->table.mask + 1) * BUCKET); /* in use, as far as it grew */
    out->nline = status == ST_SOLVED ? S->path.n : 0;
    out->line = copy_moves(PATH(S), out->nline);
    out->nbest = S->best.n;
    out->best = copy_moves((Move *)S->best.p, S->best.n);
    if (!out->line || !out->best) {
        outcome_free(out);
        status = -1;
    }
done:
    search_free(S);
    free(s);
    return status < 0 ? -1 : 0;
}
