from django.urls import path

from leaderboard import apis

urlpatterns = [
    path("leaderboards/<str:date>/<str:game>", apis.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("players/<str:username>", apis.PlayerApi.as_view(), name="api-player"),
]
