from django.urls import path

from leaderboard import apis

urlpatterns = [
    path("attempts/<int:attempt_id>/submit", apis.AttemptSubmitApi.as_view(), name="attempt-submit"),
    path("submissions/<int:submission_id>", apis.SubmissionDetailApi.as_view(), name="submission-detail"),
    path("leaderboards/<str:date>/<str:game>", apis.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("players/<str:username>", apis.PlayerApi.as_view(), name="api-player"),
    path("me/day", apis.DaySummaryApi.as_view(), name="api-my-day"),
    path("players/<str:username>/stats", apis.PlayerStatsApi.as_view(), name="api-player-stats"),
]
