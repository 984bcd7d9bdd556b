/* What search.c and beam.c share: the search's working memory and its steps. */
#ifndef SOLVER_SEARCH_H
#define SOLVER_SEARCH_H

#include "core.h"

#define BUCKET 16

/* 16 bytes: the key's high word (never zero: zero marks an empty slot) and its low word's low
 * 32 bits, which hold every bit a bucket's index is taken from (at most 2^32 buckets), so a
 * bucket splits without the rest of the key. The other 32 bits of the 128-bit key are not kept:
 * two positions are taken for one only when 95 bits of their keys agree (docs/solver.md). */
typedef struct {
    uint64_t hi;
    uint32_t lo;
    uint32_t work; /* PIN: on the current path, never replaced; below it, the nodes searched below
                      the entry (when it left the path), capped */
} Entry;

#define PIN 0x80000000u

typedef struct {
    Entry *e;
    size_t mask;  /* buckets - 1 */
    size_t limit; /* the bound's buckets - 1: the table doubles up to it (table_room) */
    Entry *over; /* path entries that found their bucket full of path entries (never seen) */
    size_t nover, capover;
    long long replaced, stored;
} Table;

typedef struct {
    int mstart, nmoves, next, safe;
    long long slot, nodes0;
} Frame;

typedef struct {
    void *p;
    size_t n, cap, size;
} Vec;

typedef struct {
    State *s;
    Table table;
    Vec path, hist, frames, moves, best;
    MoveList ml;
    Rng rng;
    int keep_best, prune, dominate, best_left, nomem;
    long long nodes;
} Search;

#define PATH(S) ((Move *)(S)->path.p)
#define HIST(S) ((Hist *)(S)->hist.p)
#define FRAMES(S) ((Frame *)(S)->frames.p)
#define MOVES(S) ((Move *)(S)->moves.p)

double now(void);
void *vec_push(Vec *v);
int vec_reserve(Vec *v, size_t extra);
Search *search_new(State *s); /* empty, for the position ``s``; NULL: no memory */
void search_free(Search *S);
int push_move(Search *S, const Move *m);
void pop_move(Search *S);
int play_safe(Search *S);
int open_frame(Search *S, int n, int safe, long long slot);
typedef int (*Enter)(Search *S, void *ctx); /* 1: won, 0: pruned (undone), 2: a frame opened, -1: no memory */
int descend(Search *S, Enter enter, void *ctx, long long stop, long long cap, double deadline, long long *depth);

#endif
