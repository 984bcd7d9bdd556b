/* The compiled search core: the types and the boundary between its files.
 *
 *   state.c   the position (state.py): play/undo, hashed key, safe moves (safe.py), frozen cards (reference/frozen.py)
 *   moves.c   move generation and order (moves.py), the weights tables, restarts' generator
 *   search.c  the transposition table and the depth-first loop (reference/searches.py's search)
 *   beam.c    the stock-step beam (beam.py, reference/searches.py's python_beam)
 *   image.c   Klondike's image game searched for proofs of loss (abstract.py, reference/image.py)
 *   module.c  the Python binding: positions and options in, an Outcome out (core.py)
 *
 * The same moves, order, safe moves, key and verdicts as the Python modules it mirrors (the proofs
 * are there; this only restates the rules); docs/solver.md, "The compiled core", has the two
 * differences, both outside what a proof relies on: 128-bit hashed keys, and a table bounded in
 * bytes that never evicts the current path.
 *
 * Only the orchestration stays in Python (core.py, api.py). Only module.c includes Python.h.
 */
#ifndef SOLVER_CORE_H
#define SOLVER_CORE_H

#include <stddef.h>
#include <stdint.h>

/* The engine's move kinds (engine/moves.py; DRAW and REDEAL only in the beam's lines). The
 * module exports them as KINDS, and core.py refuses a module whose kinds are not the engine's. */
enum { DRAW = 0, REDEAL = 1, W2T = 3, W2F = 4, T2F = 5, T2T = 6, F2T = 7 };
enum { ST_SOLVED = 0, ST_UNSOLVABLE = 1, ST_UNKNOWN = 2 };

#define KING 12
#define MAXCOLS 16
#define MAXCOL 128
#define MAXTALON 112
#define MAXMOVES 4096 /* more than any position can have: < 16 columns x 13 run lengths x 5 + 224 stock routes x 6 */
#define MAXROUTES (2 * MAXTALON + 4)
#define CHECK_EVERY 256

static const int RED[4] = {0, 1, 1, 0};
static const int OTHER_COLOUR[4][2] = {{1, 2}, {0, 3}, {0, 3}, {1, 2}};

/* The move order's and the beam's weights: moves.py's Weights and beam.py's Weights, by name,
 * handed over once by ``init`` (core.py, when it loads the module); no numbers here. */
#define MOVE_WEIGHTS(X)                                                                                              \
    X(up) X(up_clears) X(move) X(per_card) X(whole) X(turns) X(turns_per_card) X(built) X(frees) X(exposes)         \
        X(whole_run) X(to_empty) X(waste_up) X(waste_build) X(waste_fill) X(stock_up) X(stock_build) X(stock_fill)  \
            X(draw) X(restart_draw) X(bury) X(redeal) X(open_up) X(open_build) X(open_fill) X(open_draw) X(down)    \
                X(king_down)
#define BEAM_WEIGHTS(X) X(up) X(inv) X(brk) X(waste_inv) X(waste) X(empty)
#define WEIGHT_FIELD(name) long long name;
typedef struct { MOVE_WEIGHTS(WEIGHT_FIELD) } MoveWeights;
typedef struct { BEAM_WEIGHTS(WEIGHT_FIELD) } BeamWeights;
#undef WEIGHT_FIELD
extern MoveWeights W;
extern BeamWeights BW;

typedef struct {
    signed char kind, a, b, rd;
    short n, j, k1, k2;
} Move;

typedef struct {
    short slot, flip, p, passes, card;
    uint64_t th0, th1;
} Hist;

/* The position (state.py's SearchState), with its column and talon hashes kept up to date. */
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

/* A talon card a stock move brings to the waste's top: (talon index, draws, redeal, draws after). */
typedef struct {
    int j, k1, rd, k2;
} Route;

/* Restarts' jitter: Python's own generator (MT19937, the state ``random.Random.getstate``
 * gives) and ``random()``'s two-word double, so a restart draws the very numbers the Python
 * search would and tries the same moves in the same order. */
typedef struct {
    uint32_t mt[624];
    int mti;
    int on;
    double noise;
} Rng;

typedef struct {
    Move m[MAXMOVES];
    double score[MAXMOVES];
    int n;
} MoveList;

/* The boundary with the binding: what a search or a beam is asked, and what it found. */
typedef struct {
    double seconds, table_mb;
    long long max_nodes; /* < 0: no cap */
    int keep_best;       /* search: keep the line to the fewest cards left */
    int prune;           /* search: never-all-up (dead.never_all_up) at every position entered: a lost one opens no moves */
    int dominate;        /* search: dead weight in the waste: a position no better than one in the table is left out */
    int width, cap;      /* beam: states kept per level, moves per state's closure */
    Rng rng;             /* rng.on: a restart (move order jittered; it proves nothing) */
} Options;

typedef struct {
    int status, best_left;
    long long nodes, depth, replaced, stored, slots;
    Move *line; /* the win (ST_SOLVED) */
    size_t nline;
    Move *best; /* the line to the fewest cards left (search: keep_best) */
    size_t nbest;
} Outcome;

/* state.c */
void init_zobrist(void);
void state_prepare(State *s); /* after the cards are in: build tables and hashes */
int found_slot(const State *s, int card);
void play(State *s, const Move *m, Hist *h);
void undo(State *s, const Move *m, const Hist *h);
void talon_drew(State *s);
void talon_rehash(State *s);
void key_of(const State *s, uint64_t *lo, uint64_t *hi);
int dominator_keys(const State *s, uint64_t *lo, uint64_t *hi); /* dead weight in the waste (reference/dead_weight.py) */
int klondike_safe(const int *f, int r, int su);
int stock_routes(const State *s, Route *out);
int safe_move(const State *s, Move *m);
int lost(const State *s);
int never_all_up(const State *s);

/* moves.c */
void gen_moves(const State *s, MoveList *ml, Rng *rng);

/* search.c, beam.c: 0 (the outcome filled; free it with outcome_free) or -1 (no memory) */
int search_position(const State *root, const Options *o, Outcome *out);
int beam_position(const State *root, const Options *o, Outcome *out);
/* image.c: the image game (abstract.py, reference/image.py); -2: not a one-deck Klondike position within its limits */
void image_init(void); /* its card masks, once, when the module loads */
int image_position(const State *s, const Options *o, Outcome *out);
void outcome_free(Outcome *out);
void beam_init(void);
size_t entry_bytes(void);

#endif
