"""Writes: follow and unfollow a player.

Only an account follows (a guest signs up first), and only an account that is open and not a guest can be
followed: a guest's internal name is nobody's to read, and a closed (banned) account is off the site.
An unknown, guest or closed account is the same 404, so following reveals nothing the profile does not.
A player follows at most MAX_FOLLOWS players: the count is checked under a lock of the follower's row, so
parallel requests cannot pass it. Following twice, or unfollowing someone not followed, changes nothing.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from follows.errors import CannotFollowSelf, GuestCannotFollow, PlayerToFollowNotFound, TooManyFollows
from follows.models import Follow
from games.models import Guest, PlayerBan

MAX_FOLLOWS = 500
USERNAME_MAX_LENGTH = 150


def followable_player(*, username: str) -> User:
    """The open, signed-up account of that name; PlayerToFollowNotFound otherwise."""
    model = get_user_model()
    found = None
    if isinstance(username, str) and "\x00" not in username and len(username) <= USERNAME_MAX_LENGTH:
        found = (
            model._default_manager.filter(**{model.USERNAME_FIELD: username}, is_active=True)
            .exclude(pk__in=Guest.objects.values("user_id"))
            .exclude(pk__in=PlayerBan.objects.values("player_id"))
            .first()
        )
    if found is None:
        raise PlayerToFollowNotFound(f"There is no player named {str(username)[:USERNAME_MAX_LENGTH]!r} to follow.")
    return found


def _refuse_guest(player: User) -> None:
    if Guest.objects.filter(user=player).exists():
        raise GuestCannotFollow("Sign up to follow players: a guest has no friends list.")


def follow_add(*, follower: User, username: str) -> tuple[Follow, bool]:
    """Follow the player ``username``: (the follow, whether it is new)."""
    _refuse_guest(follower)
    followed = followable_player(username=username)
    if followed.pk == follower.pk:
        raise CannotFollowSelf("You cannot follow yourself: your own results are always on your friends board.")
    with transaction.atomic():
        # The follower's row serializes their concurrent follows, so the count below stays true.
        get_user_model()._default_manager.select_for_update().filter(pk=follower.pk).values_list("pk").first()
        existing = Follow.objects.filter(follower=follower, followed=followed).first()
        if existing is not None:
            return existing, False
        if Follow.objects.filter(follower=follower).count() >= MAX_FOLLOWS:
            raise TooManyFollows(f"You already follow {MAX_FOLLOWS} players, the most a player can follow.")
        try:
            with transaction.atomic():
                return Follow.objects.create(follower=follower, followed=followed), True
        except IntegrityError:  # the same follow made at the same moment elsewhere (another lock path)
            return Follow.objects.get(follower=follower, followed=followed), False


def follow_remove(*, follower: User, username: str) -> bool:
    """Stop following ``username``: whether a follow was removed (an unknown name removes nothing)."""
    model = get_user_model()
    if not isinstance(username, str) or "\x00" in username or len(username) > USERNAME_MAX_LENGTH:
        return False
    deleted, _ = Follow.objects.filter(follower=follower, **{f"followed__{model.USERNAME_FIELD}": username}).delete()
    return deleted > 0
