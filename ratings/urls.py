from django.urls import path

from ratings import apis

urlpatterns = [
    path("players/<str:username>/ratings", apis.PlayerRatingsApi.as_view(), name="api-player-ratings"),
    path(
        "players/<str:username>/ratings/<str:game>",
        apis.PlayerRatingHistoryApi.as_view(),
        name="api-player-rating-history",
    ),
]
