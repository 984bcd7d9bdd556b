"""Provably safe foundation moves, played without branching.

A move M from position S is *safe* when: if S can be won, S after M can be won. Playing
a safe move without trying the alternatives loses no solution, so ``unsolvable`` stays
a sound verdict. We only use moves of a card ``c`` (rank r, 0-based) from a column's top
(or from the waste's top in draw-1 games) to a foundation.

Lemma (two-deck games; no card ever leaves a foundation). Let ``c`` be a column's top
(or the waste's top, draw 1) of rank r and suit s such that
  (a) every card that could ever be built onto ``c`` in a column is already up: with
      same-suit building both copies of rank r-1 of suit s (nothing, for an ace); with
      alternate colours the four cards of rank r-1 of the other colour; and
  (b) both piles of suit s hold at least r cards (so, as at most the other copy of ``c``
      is up, the lower pile holds exactly r and ``c`` can go onto a pile at r).
Then moving ``c`` up is safe. Proof: take a winning line W from S; S' is S with ``c`` up.
Play W from S' skipping every move of ``c`` (a run ending with ``c`` moves one card
fewer; the draw that turns ``c`` is skipped, and so is a redeal of a waste holding only
``c``). Invariant: S' is W's position without ``c``, and, until W plays ``c`` up, with one
pile of suit s at r in W being at r+1 in S'.
  * By (a) nothing is ever put onto ``c`` in W, so ``c`` stays a column's top or in the
    waste, and its absence changes no other move: a column holding only ``c`` is empty
    in S' (it took nothing in W); the waste's top differs only while it is ``c``, and then
    W can only move ``c``.
  * Foundations: while W has not played ``c``, at most the other copy c' is up, so by
    (b) W has a pile of suit s at r (piles r, r while c' is down; r+1, r after), and S'
    is the same with that pile at r+1. A card W plays up finds its pile in S': in W the
    bumped pile takes only a rank-r card of suit s, i.e. c'; when W puts c' on it, the
    piles are r, r in W, so S' puts c' on the other pile and the bump moves there.
    Without (b) this fails: with piles at r and below r, W may put c' on the pile at r and
    S' has no pile at r left for it.
  * Redeals: S' has at least the passes W has.
So the skipped line wins from S'. For same-suit building (a) implies (b); for alternate
colours (b) is checked separately.

Klondike (cards may come back from the foundations, draw 1 or 3). The lemma above breaks
because a child of ``c`` can come back down onto it. Instead (the classical "worry-back"
rule, the condition Solvitaire uses, for which Blake and Gent give a proof):

The worry-back safe move. Let ``c`` (rank r, suit s, pile s at r) be a column's top, or the waste's top with
draw 1 (or, the safe move from the talon, below, any talon card with draw 1 and unlimited redeals), such that
both suits of the other colour have at least r cards up and the other suit of c's colour
(its *twin*) at least r-1. Then moving ``c`` up is safe.
Proof. Call *low* the cards below these levels: other-colour ranks < r, twin ranks < r-1,
own-suit ranks < r. All are up in S. Take a winning line W from S and play it from S'
(S with ``c`` up) skipping every move of ``c`` or of a low card (a run keeps only its part
below its first low card or ``c``), the draw that turns ``c``, and a redeal of a waste that
holds only ``c``.
  * What a low card can hold is low: an other-colour card of rank k < r takes a card of
    c's colour and rank k-1 <= r-2 (own suit < r, twin < r-1: low); a card of c's colour
    with rank k <= r-1 takes an other-colour rank k-1 < r (low); ``c`` takes rank r-1 of
    the other colour (low). So a card that is neither low nor ``c`` (*high*) never sits
    on a low card or on ``c`` in W: each column of W is a high part with a (possibly empty)
    segment of low cards and ``c`` on top. Low cards never reach the waste (they start on
    the foundations).
  * Invariant: S' has W's columns without that top segment (with possibly more cards face
    up: a card ``c`` covered in W is turned in S'), W's talon without ``c``, and each pile
    at max(W's count, its low level) (c's suit: r+1).
  * W's moves: a high card going up has rank at least its pile's low level, so S' has the
    same pile count and the same card on top of its column or waste. A high card taken
    down from a pile goes onto a high card (it holds a high card) or an empty column: the
    same in S'. A run with a high bottom card moves its high part to the same card or
    empty column. Moves of low cards or ``c`` change nothing S' holds. Draws: S' waste and
    stock are W's without ``c``, so the waste's top is the same whenever W plays from it.
  * When W has every card up, so has S'.
So S' can be won. The skipped line has fewer moves than W, which gives a second rule:

Safe cards stay up. A pile's top card ``z`` (rank k) that would be safe by the worry-back safe move if it were a
column's top (both other-colour suits at least k, twin at least k-1) is never taken down:
if a winning line from P began by putting ``z`` onto a column (position Q, z a column top),
the worry-back safe move applied to Q (Q with z up is P) gives a winning line from P with fewer moves that
never moves z. So a shortest winning line from P (counted in moves other than draws,
which K+ folds in) never starts with such a move, and leaving these moves out keeps a
winning successor of every winnable position (``gen_moves`` skips them).

Partial runs need a use (Klondike: which partial-run moves to try). In a real Klondike position every
column's face-up cards form one run (built down in alternate colours): a card is only ever
turned with nothing on it, and only built cards are put on it. A *partial* move takes the
run from ``v`` up off a face-up card ``u`` it is built on, and so puts it on ``u'``, the
other card of u's rank and colour (the only other card ``v`` builds on), in column b; u
is left on top of column a. Such a move P is generated only when, in the position S
before it,
  (a) ``u`` can go up now; or
  (b) some face-up card ``t`` of column a from ``u`` down has a parent (a card it builds
      on) face up in another column, or is a king while a column is empty; or
  (c) ``v'`` (the other card of v's rank and colour) is face up in a column, anywhere in
      the talon, or the top card of its foundation.
Claim: from a winnable S some shortest winning line (counted as for safe cards staying up) starts
with a move the generator keeps. Proof.
  * Postponing. Let W = P I1 .. Ik M ... win from S, where M is the first move after P
    that moves ``u``, puts a card on it, or moves ``v``. Then I1 .. Ik P M ... wins too.
    Invariant: playing I1 .. Ij without P gives the same position as with it, except that
    the run R now based on ``v`` (cards may have left or joined its top) sits on ``u`` in
    column a instead of on ``u'`` in column b. The cards under ``u`` and ``u'`` never change
    (``u`` does not move, ``u'`` stays covered by ``v``). Each Ij touches neither ``u`` nor
    ``u'`` (covered), so it touches the same cards without P: a move onto or off R's top part
    (R holds no king, so no part of it goes to an empty column), a move elsewhere, a draw or
    a foundation move. Both columns stay non-empty and turn no card. Afterwards P is legal.
    The safe moves played after each move are the same both ways: the worry-back safe move never plays ``u``
    or ``u'`` up while ``v``, which builds on both, is in a column.
  * In a shortest W, M does not move ``v`` as the bottom card of what it moves: ``v`` can go
    only onto ``u`` (then dropping P and M gives the same position in two moves fewer) or up
    (then dropping P gives the same position one move sooner). M may move ``v`` inside a run
    of column b that holds ``u'`` (next point). And M exists, since ``u`` must go up some time.
  * If none of (a)-(c) holds in S, some Ij is not a partial move: M is ``u`` going up (its
    pile must rise first: a foundation move), a run topped by ``u`` going onto a parent of
    its bottom card ``t`` (no parent is face up outside column a in S, and none inside it
    can be reached without moving ``u``: one must be turned or come from the talon or a
    foundation), or onto an empty column (none in S; a partial move empties no column), or
    ``v'`` (with its run) or ``v`` onto ``u`` (``v`` is excluded above; ``v'`` must be turned
    or come down from its foundation), or a run of column b that holds ``u'`` (and so ``v``).
    That run's bottom card is ``u'`` itself: a run is built down, so a card under ``u'`` in
    it would be a parent of ``u'``, and so of ``u``, face up outside column a, which is (b).
    It goes onto a parent of ``u'`` (the same cards as u's) on top of another column: by (b)
    none is face up outside column a, and the only one that can be face up inside it lies
    under ``u``, which M would have to move first; or, ``u'`` a king, into an empty column:
    then ``u`` is a king too, and (b) would see the empty column. A partial move turns no
    card, empties no column, and moves nothing to or from the talon or a foundation; it moves
    face-up cards only between columns, so none of this can come about through partial
    moves alone.
  * So take a shortest winning line; while it starts with a partial move the generator
    drops, postpone that move to just before its M. The line stays a shortest win and its
    first non-partial move comes one place sooner, so this ends with a line whose first
    move is a non-partial move (kept, by safe cards staying up and the reductions in ``moves``) or a
    kept partial move.
Only column a's shape is assumed, so ``gen_moves`` applies the rule only where column a's
face-up cards are one run (always, in real positions).

Twin shuffles need a use (twin shuffles in the one-card two-deck games: Forty Thieves, Lucas, Limited,
Maria, Forty and Eight). One card moves at a time, and the two copies of a card are the
same integer (interchangeable). A *twin shuffle* moves a column's top ``c`` off the card
``u`` below it that it is built on, either onto ``u'``, the other copy of ``u``, on top of
another column b, or into an empty column e; ``u`` is left on top of column a. Every other
move is a *non-shuffle*. Such a move P is left out when, in the position S before it,
  (1) ``u`` cannot go up;
  (2) no card ``u`` builds on (a parent of ``u``) is a column's top;
  (3) no column is empty (onto ``u'``), or no column but e is empty (into e);
  (4) no card that builds on ``c`` (a *child* of ``c``) is a column's top or a talon card a
      stock move can play (the waste's top and the stock; with a redeal left, any); and
  (5) the same for every card other than ``c`` that builds on ``u`` (Maria: the two copies
      of c's rank in the other suit of c's colour; with same-suit building there is none).
Claim: from a winnable S some shortest winning line (counted in solver moves, K+ draws
folded in, as for safe cards staying up) starts with a move the generator keeps. Proof.
  * Closure: shuffles alone keep (1)-(5). A shuffle changes no foundation and no talon (so
    (1) and the talon part of (4)-(5) stay); it never empties a column (the parent stays)
    and an empty target is used up (so (3) stays). A card z that is not a column's top
    becomes one only when the card w on it leaves or z itself is brought from the talon;
    if w is built on z, w's shuffle goes onto z's other copy (which must then be a top) or
    into an empty column, otherwise w's move is a non-shuffle. The sets of (2), (4) and (5)
    hold both copies of each card in them, so by induction over the shuffles none of their
    cards becomes a top; that is what makes the rule sound for chains of shuffles, each
    preparing the next.
  * Shortness. Let W = P I1 .. Ik N ... be a shortest win from S, I1 .. Ik shuffles and N
    its first non-shuffle (one exists: cards must go up). After P the tops of columns a and
    b (or e) are ``u`` and ``c``. Let Q be the first of I1 .. Ik, N that touches column a, b
    or e. The moves before Q, played from S without P, are legal and leave everything as
    with P except where ``c`` lies. Q is not a move of ``c``: dropping P and moving ``c``
    from column a to the same place gives the same position one move sooner (two, for
    ``c`` back onto ``u``). Q does not put c'' (``c``'s other copy) onto ``u``: without P,
    c'' onto ``u'`` in b (or into e) gives the same position (``c`` and c'' are one
    integer) one move sooner. Nor is Q anything else, even if it is N (only shuffles came
    before it, so (1)-(5) still hold by the closure): ``u`` cannot go up, has no parent on
    top and no empty column to go to; the only cards that can go onto ``c``, or onto ``u``
    besides ``c`` and c'', are those of (4) and (5), none a top or in reach; and e holds
    ``c``, so it is nobody's empty target. So Q does not exist.
  * Hence I1 .. Ik N, played from S without P, are legal and leave a, b (e) as in S; P is
    legal after them and reaches W's position after N. So W' = I1 .. Ik N P ... is a
    shortest win too, and its first non-shuffle comes one place sooner.
  * Take a shortest win whose first non-shuffle comes as soon as possible. If it started
    with a left-out shuffle, the step above would give one with it sooner still; so it
    starts with a non-shuffle (always generated, up to the equivalences in ``moves``) or
    a kept shuffle.
Klondike has no twin shuffles to leave out: a card's two parents there differ in suit and
only a king (built on nothing) may go to an empty column; partial runs needing a use is its analogue.

Aces satisfy the worry-back safe move always and twos whenever both aces of the other colour are up.
With draw 3 a card leaving the waste changes how later passes are grouped in threes, so
there only column tops are played automatically.

The safe move from the talon (Klondike, draw 1, unlimited redeals: a safe card from anywhere in the talon).
the worry-back safe move holds for ``c`` anywhere in the talon, not only on the waste's top: its proof never
uses where in the talon ``c`` lies. W's talon with ``c`` left out is S' talon at every step:
a draw that turns ``c`` is skipped, a draw past ``c`` buries it in W and nothing in S', so
whenever W plays the waste's top, that card is S' waste's top too; a redeal turns both
wastes over alike (one that holds only ``c`` is skipped), and with unlimited redeals S' has
all the passes W has. Bringing ``c`` up takes draws (and maybe a redeal) first, which the K+
move folds in; with draw 1 and unlimited redeals, positions that differ only in how many
cards are drawn (``p``) reach one another by draws alone, so they are one position (``p`` is
not in the key, see ``state``), and S after the K+ move is S' up to ``p``. So the move is safe
and is played without branching. Draws are not counted in a line's length (safe cards stay up), so
the line from S' is still no longer than W, and the other lemmas' postponements compare two
lines with the same talon, where this rule plays the same cards. Where passes are limited a
draw uses part of a pass, and with draw 3 it regroups later passes: there the rule does not
apply. Checked against the engine's exhaustive search on random draw-1 positions with most
cards in the stock where it fired (tests; 1,200 such positions, 539 of them lost, when it
was written), and measured in docs/winnability/measurements.md (it decides Klondike seed 66,
lost, in 12.6 M nodes instead of 38.4 M, and seed 39, lost, in 75 M instead of more than 150 M).
"""

from __future__ import annotations

OTHER_COLOUR = ((1, 2), (0, 3), (0, 3), (1, 2))


def klondike_safe(f: list[int], r: int, s: int) -> bool:
    """The worry-back safe move's levels for a card of rank r and suit s (its own pile is not checked)."""
    t, u = OTHER_COLOUR[s]
    return f[t] >= r and f[u] >= r and f[3 - s] >= r - 1
