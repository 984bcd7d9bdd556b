from django.urls import path

from leagues import apis

LEAGUE = "leagues/<int:league_id>"

urlpatterns = [
    path("leagues", apis.LeaguesApi.as_view(), name="leagues"),
    path("leagues/join", apis.LeagueJoinApi.as_view(), name="league-join"),
    path(LEAGUE, apis.LeagueDetailApi.as_view(), name="league-detail"),
    path(f"{LEAGUE}/leave", apis.LeagueLeaveApi.as_view(), name="league-leave"),
    path(f"{LEAGUE}/invite-code", apis.LeagueInviteCodeApi.as_view(), name="league-invite-code"),
    path(f"{LEAGUE}/boards/all-time", apis.LeagueAllTimeBoardApi.as_view(), name="league-board-all-time"),
    path(f"{LEAGUE}/boards/<str:date>/<str:game>", apis.LeagueDailyBoardApi.as_view(), name="league-board-daily"),
]
