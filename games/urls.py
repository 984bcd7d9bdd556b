from django.urls import path

from games import apis, auth_apis, views

DATE = "<str:date>"

urlpatterns = [
    path("health", views.HealthApi.as_view(), name="api-health"),
    path("auth/register", auth_apis.RegisterApi.as_view(), name="auth-register"),
    path("auth/token", auth_apis.TokenApi.as_view(), name="auth-token"),
    path("auth/logout", auth_apis.LogoutApi.as_view(), name="auth-logout"),
    path("games", apis.GamesApi.as_view(), name="games"),
    path("daily", apis.DailyApi.as_view(), name="daily"),
    path(f"daily/{DATE}/<str:game>", apis.ChallengeApi.as_view(), name="daily-challenge"),
    path(f"daily/{DATE}/<str:game>/solution", apis.SolutionApi.as_view(), name="daily-solution"),
    path(f"daily/{DATE}/<str:game>/stats", apis.DayStatsApi.as_view(), name="daily-stats"),
    path(f"daily/{DATE}/<str:game>/attempts", apis.AttemptStartApi.as_view(), name="attempt-start"),
    path("attempts/<int:attempt_id>", apis.AttemptDetailApi.as_view(), name="attempt-detail"),
    path("attempts/<int:attempt_id>/replay", apis.AttemptReplayApi.as_view(), name="attempt-replay"),
    path("attempts/<int:attempt_id>/moves", apis.attempt_moves, name="attempt-moves"),
    path("attempts/<int:attempt_id>/hint", apis.AttemptHintApi.as_view(), name="attempt-hint"),
]
